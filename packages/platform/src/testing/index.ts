export * from "./fake-http";
export * from "./tcp-relay";
export * from "./ports";
