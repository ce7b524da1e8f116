export * from "./types";
export { createInProcessQueue } from "./in-process";
