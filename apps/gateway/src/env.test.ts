import { describe, expect, it } from "vitest";
import { gatewayWorkers, readEnv } from "./env";

const server = { DATABASE_URL: "postgres://db/x", REDIS_URL: "redis://r:6379" };

describe("gatewayWorkers", () => {
  it("runs one process per CPU with PostgreSQL and Redis, one otherwise", () => {
    expect(gatewayWorkers(readEnv(server), 4)).toBe(4);
    expect(gatewayWorkers(readEnv({}), 4)).toBe(1);
    expect(gatewayWorkers(readEnv({ DATABASE_URL: server.DATABASE_URL }), 4)).toBe(1);
    expect(gatewayWorkers(readEnv({ ...server, GATEWAY_WORKERS: "2" }), 8)).toBe(2);
  });

  it("refuses a cluster whose limits could not be exact", () => {
    expect(() => gatewayWorkers(readEnv({ GATEWAY_WORKERS: "2" }), 4)).toThrow(/REDIS_URL/);
    expect(() => readEnv({ GATEWAY_WORKERS: "0" })).toThrow(/GATEWAY_WORKERS/);
  });
});

describe("DB_REQUEST_TIMEOUT_MS", () => {
  it("bounds an interactive request's queries at 2 s unless set; 0 leaves requests to the pool's bounds", () => {
    expect(readEnv({}).DB_REQUEST_TIMEOUT_MS).toBe(2_000);
    expect(readEnv({ DB_REQUEST_TIMEOUT_MS: "0" }).DB_REQUEST_TIMEOUT_MS).toBe(0);
    expect(() => readEnv({ DB_REQUEST_TIMEOUT_MS: "-1" })).toThrow(/DB_REQUEST_TIMEOUT_MS/);
  });
});
