import { TRPCError } from "@trpc/server";
import { describe, expect, it } from "vitest";
import { isUnavailable, toWireError } from "./wire-error";

const withCode = (code: string, message = "x") => Object.assign(new Error(message), { code });

describe("toWireError: dependencies down are 503, never 500", () => {
  it.each([
    ["ECONNREFUSED", withCode("ECONNREFUSED")],
    ["ECONNRESET", withCode("ECONNRESET")],
    ["pool connect timeout", new Error("timeout exceeded when trying to connect")],
    ["connection terminated", new Error("Connection terminated unexpectedly")],
    ["node-postgres query_timeout", new Error("Query read timeout")],
    [
      "the bounded pool's client-side timeout, wrapped by drizzle",
      Object.assign(new Error("Failed query: select 1"), {
        cause: Object.assign(new Error("Query read timeout: PostgreSQL did not answer within 2000 ms"), {
          name: "QueryTimeoutError",
        }),
      }),
    ],
    ["57P01 admin_shutdown", withCode("57P01")],
    ["57014 statement timeout", withCode("57014", "canceling statement due to statement timeout")],
    ["08006 connection failure", withCode("08006")],
    ["53300 too many connections", withCode("53300")],
    [
      "wrapped by drizzle and tRPC",
      new TRPCError({
        code: "INTERNAL_SERVER_ERROR",
        cause: Object.assign(new Error("Failed query"), { cause: withCode("ECONNREFUSED") }),
      }),
    ],
    ["inside an AggregateError", new AggregateError([withCode("ECONNREFUSED")], "connect failed")],
  ])("%s", (_label, err) => {
    expect(isUnavailable(err)).toBe(true);
    const wire = toWireError(err);
    expect(wire.status).toBe(503);
    expect(wire.body).toEqual({ error: "service_unavailable", message: expect.any(String) });
    expect(wire.headers["Retry-After"]).toBe("1");
  });

  it("keeps other failures a bare 500 without internals", () => {
    const wire = toWireError(new Error("relation users does not exist at SELECT …"));
    expect(wire.status).toBe(500);
    expect(JSON.stringify(wire.body)).not.toContain("relation");
  });

  it("maps a data exception PostgreSQL raised from input to 400, flagged for the log", () => {
    const wire = toWireError(withCode("22P02", "invalid input syntax for type timestamp"));
    expect(wire.status).toBe(400);
    expect(wire.body.error).toBe("invalid_input");
    expect(wire.suspicious).toBe(true);
  });
});
