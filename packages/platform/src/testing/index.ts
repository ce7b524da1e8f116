export * from "./fake-http";
