import { createServer } from "node:http";
import { type AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { recordingSleep } from "../../../fakes/src/adapter-harness";
import { startFakeServer, type TFakeServer } from "../../../fakes/src/fake-server";
import { SourceAuthError, SourceUnavailableError } from "../types";
import { createJsonClient, type THttpOptions } from "./client";
import { SourceHttpError } from "./errors";
import { graphItems } from "./paginate";
import { staticTokenProvider } from "./token";

let server: TFakeServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const noSleep = { sleep: async () => undefined };

function testClient(baseUrl: string, http?: THttpOptions) {
  return createJsonClient({ source: "Test", baseUrl, tokens: staticTokenProvider("abc"), http });
}

describe("createJsonClient", () => {
  it("sends the bearer token and query, and returns the JSON body", async () => {
    server = await startFakeServer({
      faultBody: () => ({}),
      handle: (req) => ({ status: 200, body: { auth: req.headers.authorization, q: req.query.get("q") } }),
    });
    const client = testClient(server.url);
    expect(await client.get("/x", { q: "a b", skipped: undefined })).toEqual({
      auth: "Bearer abc",
      q: "a b",
    });
    expect(server.requests[0]?.query.has("skipped")).toBe(false);
  });

  it("sends a request's own headers on every attempt, never in place of the client's", async () => {
    server = await startFakeServer({
      faultBody: () => ({}),
      handle: (req) => ({
        status: 200,
        body: { consistency: req.headers.consistencylevel, auth: req.headers.authorization },
      }),
    });
    server.injectFault({ status: 429, count: 1, retryAfter: 1 });
    const client = testClient(server.url, noSleep);
    const headers = { ConsistencyLevel: "eventual", Authorization: "Bearer stolen" };
    expect(await client.get("/count", undefined, { headers })).toEqual({
      consistency: "eventual",
      auth: "Bearer abc",
    });
    expect(server.requests.map((r) => r.headers.consistencylevel)).toEqual(["eventual", "eventual"]);
    // Requests without the option carry no such header.
    await client.get("/plain");
    expect(server.requests[2]?.headers.consistencylevel).toBeUndefined();
  });

  it("retries network errors and then reports the source unavailable", async () => {
    // Reserve a port, then free it, so connections to it are refused.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const { delays, http } = recordingSleep({ retry: { maxAttempts: 3 } });
    const client = testClient(`http://127.0.0.1:${port}`, http);
    await expect(client.get("/x")).rejects.toThrow(SourceUnavailableError);
    expect(delays).toHaveLength(2);
  });

  it("times out a request that never answers and retries it", async () => {
    let calls = 0;
    server = await startFakeServer({
      faultBody: () => ({}),
      handle: async () => {
        calls++;
        if (calls === 1) await new Promise((resolve) => setTimeout(resolve, 1000));
        return { status: 200, body: { ok: true } };
      },
    });
    const client = testClient(server.url, { ...noSleep, timeoutMs: 100 });
    expect(await client.get("/slow")).toEqual({ ok: true });
    expect(calls).toBe(2);
  });

  it("maps 403 to SourceAuthError and 404 to a SourceHttpError carrying the status, without retrying", async () => {
    server = await startFakeServer({
      faultBody: () => ({}),
      handle: (req) =>
        req.path === "/denied"
          ? {
              status: 403,
              body: { error: { code: 403, message: "Not Authorized to access this resource/api" } },
            }
          : { status: 404, body: { error: { code: "itemNotFound", message: "Item not found" } } },
    });
    const client = testClient(server.url, noSleep);
    await expect(client.get("/denied")).rejects.toThrow(
      new SourceAuthError("Test: Not Authorized to access this resource/api (HTTP 403)"),
    );
    const missing = await client.get("/missing").catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(SourceHttpError);
    expect((missing as SourceHttpError).status).toBe(404);
    expect(server.requests).toHaveLength(2);
  });

  it("refuses to follow a next link to another origin, so the token never leaves the API host", async () => {
    server = await startFakeServer({
      faultBody: () => ({}),
      handle: () => ({
        status: 200,
        body: { value: [1], "@odata.nextLink": "http://attacker.invalid/steal" },
      }),
    });
    const client = testClient(server.url, noSleep);
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const item of graphItems<number>(client, "/v1.0/things")) seen.push(item);
      })(),
    ).rejects.toThrow(/Refusing to follow/);
    expect(seen).toEqual([1]);
  });
});
