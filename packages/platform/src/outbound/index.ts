export * from "./guard";
export * from "./ip-ranges";
export * from "./fetch";
export * from "./pinned-request";
