// The service's composition root (issue 29): the one place that wires the domain packages
// together — the API's routers with what each is handed (`./router`), every package's background
// work (`./jobs`), and the partner router's reads of its clients (`./partner`). The gateway, the
// scheduler and the demo seed take their wiring from here; the scheduler imports `./jobs` only.
export { appRouter, type AppRouter } from "./router";
export * from "./jobs";
export { partnerDeps } from "./partner";
