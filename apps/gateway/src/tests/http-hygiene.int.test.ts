import { Writable } from "node:stream";
import { sql } from "drizzle-orm";
import pino from "pino";
import { beforeAll, describe, expect, it } from "vitest";
import { LOG_REDACT } from "@posture/platform";
import { type TTestGateway, useTestGateway } from "../testing";
import { errorCode, freshIp } from "./helpers";

// Everything the gateway logs, as production would write it (same redaction), kept for inspection.
const logLines: string[] = [];
const sink = new Writable({
  write(chunk: Buffer, _enc, done) {
    logLines.push(chunk.toString("utf8"));
    done();
  },
});
const log = pino({ level: "trace", redact: { paths: LOG_REDACT, censor: "[redacted]" } }, sink);

const gw = useTestGateway({ log });
let actor: Awaited<ReturnType<TTestGateway["createActor"]>>;
beforeAll(async () => {
  actor = await gw.createActor({ plan: "business", role: "OWNER" });
});

const req = (method: string, path: string, o: Parameters<TTestGateway["request"]>[2] = {}) =>
  gw.request(method, path, { ip: freshIp(), ...o });

describe("response headers", () => {
  it("sets the security headers and no X-Powered-By", async () => {
    for (const res of [await req("GET", "/api/health"), await req("GET", "/api/nope")]) {
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(res.headers.get("referrer-policy")).toBe("no-referrer");
      expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
      expect(res.headers.get("strict-transport-security")).toMatch(/^max-age=\d+/);
      expect(res.headers.get("x-powered-by")).toBeNull();
    }
  });

  it("marks every /api response Cache-Control: no-store, but a JSON GET's private, no-cache", async () => {
    const responses = [
      await req("GET", "/api/keys"),
      await req("GET", "/api/nope"),
      await req("POST", "/api/incidents", {
        key: actor.key,
        body: { title: "Hygiene", priority: "P3", findingIds: [] },
      }),
    ];
    expect(responses.map((r) => r.status)).toEqual([401, 404, 201]);
    for (const res of responses) expect(res.headers.get("cache-control")).toBe("no-store");
    // A JSON GET answered 200 is revalidated by the caller's own cache (tests/conditional.int.test.ts).
    for (const res of [await req("GET", "/api/health"), await req("GET", "/api/keys", { key: actor.key })]) {
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe("private, no-cache");
      expect(res.headers.get("etag")).toMatch(/^"[\w-]{27}"$/);
    }
    // Except the API reference, the same for everyone (tests/docs.int.test.ts).
    expect((await req("GET", "/api/openapi.json")).headers.get("cache-control")).toBe("public, max-age=300");
  });

  it("echoes a well-formed X-Request-Id and generates one otherwise", async () => {
    const echoed = await req("GET", "/api/health", { headers: { "x-request-id": "client-trace.42" } });
    expect(echoed.headers.get("x-request-id")).toBe("client-trace.42");
    const generated = await req("GET", "/api/health");
    expect(generated.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const hostile = await req("GET", "/api/health", { headers: { "x-request-id": "a b<script>" } });
    expect(hostile.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const errored = await req("GET", "/api/nope", { headers: { "x-request-id": "trace-404" } });
    expect(errored.headers.get("x-request-id")).toBe("trace-404");
  });
});

describe("request bodies", () => {
  it("answers a body over 100 kB with 413 payload_too_large", async () => {
    const res = await req("POST", "/api/keys", { cookie: actor.cookie, body: { name: "x".repeat(101_000) } });
    expect(res.status).toBe(413);
    expect(errorCode(res)).toBe("payload_too_large");
  });

  it("answers malformed JSON with 400 invalid_input", async () => {
    const res = await req("POST", "/api/keys", {
      cookie: actor.cookie,
      rawBody: '{"name": "unterminated',
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe("invalid_input");
    expect(res.text).not.toMatch(/SyntaxError|at JSON\.parse|node_modules/);
  });

  it("answers a failed validation with 400 invalid_input and details", async () => {
    const res = await req("POST", "/api/keys", { cookie: actor.cookie, body: { name: 42 } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: "invalid_input", details: [{ path: "name" }] });
  });
});

describe("errors", () => {
  it("answers unknown paths with 404 not_found in the contract's body", async () => {
    for (const path of ["/api/no/such/path", "/nothing-here"]) {
      const res = await req("GET", path);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "not_found", message: expect.any(String) });
    }
  });

  it("answers an unexpected failure with a bare 500 internal_error: no stack, no SQL", async () => {
    // A database fault the code cannot expect: every insert into api_keys now fails.
    await gw.db.db.execute(
      sql.raw(`CREATE FUNCTION hygiene_fail() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'relation "secret_internal_table" is broken: SELECT * FROM api_keys'; END $$;
        CREATE TRIGGER hygiene_fail BEFORE INSERT ON api_keys FOR EACH ROW EXECUTE FUNCTION hygiene_fail();`),
    );
    let res;
    try {
      res = await req("POST", "/api/keys", { cookie: actor.cookie, body: { name: "boom" } });
    } finally {
      await gw.db.db.execute(sql.raw(`DROP TRIGGER hygiene_fail ON api_keys; DROP FUNCTION hygiene_fail();`));
    }
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: "internal_error", message: "Internal server error" });
    expect(res.text).not.toMatch(/secret_internal_table|SELECT|api_keys|\.ts:\d+|at /);
    // The operator still learns what happened, from the log.
    expect(logLines.join("")).toContain("secret_internal_table");
  });
});

describe("logs", () => {
  it("never contain an API key, a session token or a password", async () => {
    const token = decodeURIComponent(actor.cookie.split("=")[1] ?? "");
    expect(token.length).toBeGreaterThan(20);
    await req("GET", "/api/keys", { key: actor.key });
    await req("GET", `/api/keys?api_key=${actor.key}`, { key: actor.key });
    await req("GET", "/api/auth/session", { cookie: actor.cookie });
    await req("POST", "/api/auth/sign-in", {
      body: { email: actor.user.email, password: actor.user.password },
    });
    await req("POST", "/api/auth/sign-in", {
      body: { email: actor.user.email, password: `${actor.user.password}x` },
    });
    const created = await req("POST", "/api/keys", { cookie: actor.cookie, body: { name: "logged?" } });
    expect(created.status).toBe(201);
    const newKey = (created.body as { key: string }).key;

    const all = logLines.join("");
    expect(all).toContain("/api/auth/sign-in"); // the requests were logged at all
    for (const secret of [actor.key, token, actor.user.password, newKey]) expect(all).not.toContain(secret);
  });
});
