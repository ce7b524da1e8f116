import { beforeAll, describe, expect, it } from "vitest";
import { type TTestGateway, useTestGateway, type TTestResponse } from "../testing";
import { freshIp } from "./helpers";

// The hostile inputs that used to reach a 500, each sent the way a client would send it. Every
// one must be a 4xx with the contract's body; the fuzz test (fuzz.int.test.ts) generalises them.

const gw = useTestGateway();
let owner: Awaited<ReturnType<TTestGateway["createActor"]>>;
beforeAll(async () => {
  owner = await gw.createActor({ plan: "enterprise", role: "OWNER" });
});

const send = (method: string, path: string, o: Parameters<TTestGateway["request"]>[2] = {}) =>
  gw.request(method, path, { ip: freshIp(), ...o });

function expectRefused(res: TTestResponse, status = 400, code = "invalid_input") {
  expect(res.status, res.text).toBe(status);
  expect(res.body).toMatchObject({ error: code, message: expect.any(String) });
}

/** `{"a":{"a":…}}` nested `depth` objects deep, as raw JSON (JSON.stringify would recurse). */
const nested = (depth: number, leaf = "1") => `${'{"a":'.repeat(depth)}${leaf}${"}".repeat(depth)}`;

const WRITES: Array<[string, string]> = [
  ["POST", "/api/auth/sign-in"],
  ["POST", "/api/keys"],
  ["POST", "/api/connectors"],
  ["POST", "/api/webhooks"],
  ["PUT", "/api/integrations/ticketing"],
];

describe("strings PostgreSQL cannot store", () => {
  it.each([
    [
      "sign-in email",
      "POST",
      "/api/auth/sign-in",
      { email: "a\u0000@x.test", password: "pw-long-enough" },
      "email",
    ],
    ["key name", "POST", "/api/keys", { name: "k\u0000" }, "name"],
    [
      "connector displayName",
      "POST",
      "/api/connectors",
      { type: "google_workspace", displayName: "D\u0000", mode: "demo" },
      "displayName",
    ],
  ])("NUL in the %s is 400 naming the field", async (_label, method, path, body, field) => {
    const res = await send(method, path, { cookie: owner.cookie, body });
    expectRefused(res);
    expect((res.body as { details: Array<{ path: string }> }).details[0]?.path).toBe(field);
  });

  it.each([
    ["key name", "/api/keys", '{"name":"k\\ud800"}', "name"],
    [
      "sign-in email (low half alone)",
      "/api/auth/sign-in",
      '{"email":"\\udc00@x.test","password":"x"}',
      "email",
    ],
    ["an object key", "/api/keys", '{"name":"k","\\ud83d":1}', "\ud83d"],
  ])("a lone surrogate in the %s is 400", async (_label, path, rawBody, field) => {
    const res = await send("POST", path, {
      cookie: owner.cookie,
      rawBody,
      headers: { "content-type": "application/json" },
    });
    expectRefused(res);
    expect((res.body as { details: Array<{ path: string }> }).details[0]?.path).toBe(field);
  });

  it("keeps a well-formed surrogate pair (an emoji) in a key name", async () => {
    const res = await send("POST", "/api/keys", { cookie: owner.cookie, body: { name: "ci 🔑" } });
    expect(res.status).toBe(201);
    expect((res.body as { name: string }).name).toBe("ci 🔑");
  });
});

describe("deeply nested bodies", () => {
  it.each(WRITES)("%s %s with a body 10,000 levels deep is 400", async (method, path) => {
    const res = await send(method, path, {
      cookie: owner.cookie,
      rawBody: `{"name":"x","config":${nested(10_000)}}`,
      headers: { "content-type": "application/json" },
    });
    expectRefused(res);
    expect(res.text).toContain("nested deeper than 32");
  });

  it("accepts nesting up to the limit (validation then decides)", async () => {
    const res = await send("POST", "/api/keys", {
      cookie: owner.cookie,
      rawBody: `{"name":"x","extra":${nested(30)}}`,
      headers: { "content-type": "application/json" },
    });
    // Past the edge's depth check; validation refuses the field POST /api/keys does not take.
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: "invalid_input", details: [{ path: "extra" }] });
    expect(res.text).not.toContain("nested deeper");
  });

  it("refuses a body with more than 10,000 values in total", async () => {
    const rawBody = JSON.stringify({ name: "x", many: Array.from({ length: 10_001 }, () => 0) });
    const res = await send("POST", "/api/keys", {
      cookie: owner.cookie,
      rawBody,
      headers: { "content-type": "application/json" },
    });
    expectRefused(res);
  });

  it("a deep body under an Idempotency-Key is 400, not a stack overflow in the fingerprint", async () => {
    const res = await send("POST", "/api/keys", {
      key: owner.key,
      rawBody: `{"name":${nested(10_000, '"x"')}}`,
      headers: { "content-type": "application/json", "idempotency-key": "deep-1" },
    });
    expectRefused(res);
  });

  it("a deep tRPC GET input is 400 too", async () => {
    // Arrays keep the URL under Node's 16 kB header limit: `[` is 3 bytes encoded.
    const input = encodeURIComponent(`${"[".repeat(1_000)}${"]".repeat(1_000)}`);
    const res = await send("GET", `/trpc/timeline.list?input=${input}`, { key: owner.key });
    expect(res.status).toBe(400);
  });
});

describe("malformed cookies", () => {
  it.each(["%E0%A4%A", "%", "%ZZ", '"unterminated', "\u00e9t\u00e9"])(
    "svc_session=%s is a 401 (a credential we never issued), never a 500",
    async (value) => {
      const res = await send("GET", "/api/usage", { headers: { cookie: `svc_session=${value}` } });
      expectRefused(res, 401, "unauthenticated");
    },
  );

  it("a malformed cookie on a public path does not stop it", async () => {
    const res = await send("GET", "/api/health", { headers: { cookie: "svc_session=%E0%A4%A" } });
    expect(res.status).toBe(200);
  });
});

describe("timeline cursors", () => {
  it.each([
    "1",
    "0",
    "-1",
    "1e999",
    "2026-13-01T00:00:00Z",
    "2026-02-30T00:00:00Z",
    "0001-01-01T00:00:00Z",
    "99999-01-01",
    "%00",
  ])("before=%s is 400", async (before) => {
    const res = await send("GET", `/api/timeline?before=${encodeURIComponent(before)}`, { key: owner.key });
    expectRefused(res);
  });

  it("a forged opaque cursor with a bad timestamp or id is 400", async () => {
    for (const forged of [["1", "x"], ["2026-01-01T00:00:00Z", "x'; drop"], ["2026-01-01T00:00:00Z"]]) {
      const before = Buffer.from(JSON.stringify(forged)).toString("base64url");
      expectRefused(await send("GET", `/api/timeline?before=${before}`, { key: owner.key }));
    }
  });

  it("accepts an ISO timestamp and the cursor it hands out", async () => {
    const ok = await send("GET", "/api/timeline?before=2030-01-01T00:00:00.000Z&limit=1", { key: owner.key });
    expect(ok.status).toBe(200);
    expect(
      (await send("GET", "/api/timeline?before=2030-01-01%2000:00:00%2B00", { key: owner.key })).status,
    ).toBe(200);
  });
});

describe("query strings", () => {
  it.each([
    ["NUL in a value", "/api/findings?status=%00"],
    ["NUL in a name", "/api/findings?a%00b=1"],
    ["an array where a scalar is expected", "/api/findings?limit=1&limit=2"],
    ["a huge number", "/api/findings?offset=1e400"],
    ["an offset past bigint", "/api/findings?offset=99999999999999999999"],
    ["a negative limit", "/api/timeline?limit=-5"],
    ["too many parameters", `/api/usage?${Array.from({ length: 70 }, (_, i) => `p${i}=1`).join("&")}`],
  ])("%s is 400", async (_label, path) => {
    expectRefused(await send("GET", path, { key: owner.key }));
  });
});

describe("headers", () => {
  it.each([
    ["a non-Bearer Authorization", { authorization: "Basic Zm9vOmJhcg==" }],
    ["a Bearer with Latin-1 bytes", { authorization: "Bearer svc_ak_\u00e9" }],
    ["an empty Bearer", { authorization: "Bearer " }],
  ])("%s is 401", async (_label, headers) => {
    expectRefused(await send("GET", "/api/usage", { headers }), 401, "unauthenticated");
  });

  it.each([
    [
      "an unsupported charset",
      { "content-type": "application/json; charset=koi8-r" },
      415,
      "unsupported_media_type",
    ],
    [
      "a corrupt gzip body",
      { "content-type": "application/json", "content-encoding": "gzip" },
      400,
      "invalid_input",
    ],
    [
      "an unknown content encoding",
      { "content-type": "application/json", "content-encoding": "zip" },
      415,
      "unsupported_media_type",
    ],
  ])("%s is a 4xx with the contract body", async (_label, headers, status, code) => {
    const res = await send("POST", "/api/auth/sign-in", {
      headers,
      rawBody: '{"email":"a@b.c","password":"x"}',
    });
    expectRefused(res, status, code);
  });
});
