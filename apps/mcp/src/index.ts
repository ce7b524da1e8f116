export * from "./catalog";
export * from "./server";
export * from "./session";
export { httpDispatch, MAX_RESOURCE_BYTES, tooLarge, type THttpOptions } from "./http-dispatch";
export { handleStreamableHttp } from "./http";
