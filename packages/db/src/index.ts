export * from "./schema";
export * from "./client";
