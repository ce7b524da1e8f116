export type { AppRouter } from "./router";
export { appRouter } from "./router";
export { createApp } from "./app";
export { startGateway, type TGateway } from "./server";
