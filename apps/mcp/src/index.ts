export * from "./catalog";
export * from "./server";
export * from "./session";
export * from "./untrusted";
export { httpDispatch, MAX_RESOURCE_BYTES, tooLarge, type THttpOptions } from "./http-dispatch";
export { BATCH_REFUSED, handleStreamableHttp } from "./http";
