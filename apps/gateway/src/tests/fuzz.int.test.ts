import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { ERROR_STATUS, routeCatalog, type TAccess, type TRouteEntry } from "@posture/platform";
import { appRouter } from "../router";
import { type TTestGateway, useTestGateway } from "../testing";
import { freshIp } from "./helpers";

/**
 * Property: whatever a client sends — hostile bodies, query strings, path ids, cookies, headers,
 * with or without valid credentials of a high-plan OWNER — no route answers 5xx, and every error
 * carries the contract's body with a known code. Routes come from the router (REST from the
 * OpenAPI meta, tRPC from the procedure tree), so a route added later is fuzzed the day it lands.
 *
 * Runs are bounded (FUZZ_RUNS per route, default 8) so the file stays well under a minute on a
 * busy two-core machine; a failure prints fast-check's seed and path to replay it exactly
 * (FUZZ_SEED=… FUZZ_RUNS=…).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 8);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const KNOWN_CODES = new Set(Object.keys(ERROR_STATUS));

const catalog = routeCatalog(appRouter);

/** The input's top-level field names, so generated inputs also reach past validation. */
function inputKeys(e: TRouteEntry): string[] {
  const shape = (e.input as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape ? Object.keys(shape) : [];
}

type TTarget = {
  label: string;
  transport: "rest" | "trpc";
  method: string;
  /** REST: the path template relative to /api; tRPC: the procedure path. */
  path: string;
  access: TAccess;
  keys: string[];
};

const targets: TTarget[] = catalog.entries.flatMap((e): TTarget[] => {
  const access = e.access ?? { auth: "public" };
  const keys = inputKeys(e);
  const trpc: TTarget = {
    label: `tRPC ${e.key}`,
    transport: "trpc",
    method: e.kind === "query" ? "GET" : "POST",
    path: e.key,
    access,
    keys,
  };
  const openapi = e.rest;
  if (!openapi) return [trpc];
  const rest: TTarget = {
    label: `${openapi.method} /api${openapi.path}`,
    transport: "rest",
    method: openapi.method,
    path: openapi.path,
    access,
    keys,
  };
  return [rest, trpc];
});

// --- generators -----------------------------------------------------------------------------

/** Percent-encodes the UTF-8 bytes (a lone surrogate becomes U+FFFD, as on any real wire). */
const pct = (s: string) =>
  [...Buffer.from(s, "utf8")]
    .map((b) =>
      /[A-Za-z0-9_.~-]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, "0")}`,
    )
    .join("");

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
const NASTY_STRINGS = [
  "\u0000",
  "a\u0000b",
  "\ud800",
  "x\udc00",
  "%E0%A4%A",
  "%00",
  "' OR 1=1 --",
  "1e400",
  "-1",
  "0",
  "9".repeat(40),
  "2026-02-30T00:00:00Z",
  "0001-01-01T00:00:00Z",
  "__proto__",
  "constructor",
  "💥".repeat(50),
  "x".repeat(5_000),
  "http://169.254.169.254/latest/meta-data",
  "javascript:alert(1)",
];
const hostileString = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: "binary", maxLength: 20 }),
  fc.tuple(fc.string({ maxLength: 5 }), loneSurrogate, fc.string({ maxLength: 5 })).map((p) => p.join("")),
  fc.constantFrom(...NASTY_STRINGS),
);
const hostileNumber = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -1, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, 2 ** 63, 1e-320),
);
const leaf = fc.oneof(hostileString, hostileNumber, fc.boolean(), fc.constant(null));
const hostileValue = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small", withCrossShrink: true }, leaf, tie("array"), tie("object")),
  array: fc.array(tie("value"), { maxLength: 4 }),
  object: fc.dictionary(hostileString, tie("value"), { maxKeys: 4 }),
})).value;

/**
 * A body, described rather than built, so a failing case prints in a line: a JSON object over
 * the input's own keys (and strangers), a document nested far past the limit, or junk text.
 */
type TBody =
  | { kind: "json"; value: unknown }
  | { kind: "deep"; key: string | null; depth: number; open: "{" | "[" }
  | { kind: "raw"; text: string };

const bodyFor = (keys: string[], maxDepth: number): fc.Arbitrary<TBody> =>
  fc.oneof(
    fc
      .dictionary(
        keys.length > 0 ? fc.oneof(fc.constantFrom(...keys), hostileString) : hostileString,
        hostileValue,
        {
          maxKeys: 6,
        },
      )
      .map((value): TBody => ({ kind: "json", value })),
    fc
      .record({
        key: fc.option(keys.length > 0 ? fc.constantFrom(...keys) : fc.constant("x")),
        depth: fc.integer({ min: 33, max: maxDepth }),
        open: fc.constantFrom<"{" | "[">("{", "["),
      })
      .map((d): TBody => ({ kind: "deep", ...d })),
    fc
      .constantFrom("", "null", "[]", '"str"', "{", '{"a":1,}', "\u0000", '{"a":"\\ud800"}', "1e999999")
      .map((text): TBody => ({ kind: "raw", text })),
  );

function renderBody(b: TBody): string {
  if (b.kind === "json") return JSON.stringify(b.value);
  if (b.kind === "raw") return b.text;
  const open = b.open === "{" ? '{"a":' : "[";
  const deep = `${open.repeat(b.depth)}1${(b.open === "{" ? "}" : "]").repeat(b.depth)}`;
  return b.key === null ? deep : `{${JSON.stringify(b.key)}:${deep}}`;
}

/** Query strings over the input's own keys: hostile, repeated (arrays), numeric extremes. */
const queryFor = (keys: string[]) =>
  fc
    .array(
      fc.tuple(
        keys.length > 0 ? fc.oneof(fc.constantFrom(...keys), hostileString) : hostileString,
        fc.oneof(hostileString, hostileNumber.map(String)),
      ),
      { maxLength: 5 },
    )
    .chain((pairs) =>
      fc.oneof(
        fc.constant(pairs.map(([k, v]) => `${pct(k)}=${pct(v)}`).join("&")),
        // Raw, possibly malformed percent-encoding, as a hand-written client would send it.
        fc.constant(
          pairs
            .map(([k, v]) => `${k.replace(/[^\x21-\x7e]/g, "")}=${v.replace(/[^\x21-\x7e]/g, "%")}`)
            .join("&"),
        ),
      ),
    );

const pathSegment = fc.oneof(
  fc.constantFrom(
    "some-id",
    "%00",
    "%E0%A4%A",
    "%",
    "..",
    "a%2Fb",
    "x".repeat(300),
    "%F0%9F%92%A5",
    "%ED%A0%80",
  ),
  hostileString.map((s) => pct(s) || "empty"),
);

// Header values must be ISO-8859-1 without CR, LF or NUL, or fetch refuses to send them.
const headerText = fc.oneof(
  fc.string({ unit: "binary-ascii", maxLength: 40 }).map((s) => s.replace(/[\x00-\x1f\x7f-\xff]/g, "")),
  fc.constantFrom("%E0%A4%A", "\u00e9\u00ff", "x".repeat(300), "a=b; c=d", '"', "\\"),
);
const cookieHeader = fc.oneof(
  headerText.map((v) => `svc_session=${v}`),
  headerText,
  fc.constantFrom(
    "svc_session=%E0%A4%A",
    "svc_session=",
    "svc_session",
    "=;=;",
    "svc_session=a; svc_session=b",
  ),
);
const extraHeaders = fc.record(
  {
    "idempotency-key": headerText,
    "x-request-id": headerText,
    "content-type": fc.constantFrom(
      "application/json",
      "application/json; charset=utf-16",
      "application/json; charset=koi8-r",
      "text/plain",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "application/vnd.api+json",
    ),
    "content-encoding": fc.constantFrom("gzip", "deflate", "br", "identity", "zip"),
    authorization: fc.oneof(
      headerText,
      headerText.map((v) => `Bearer ${v}`),
    ),
    origin: fc.constantFrom("https://evil.example", "null", "http://127.0.0.1"),
    "sec-fetch-site": fc.constantFrom("cross-site", "same-origin", "none"),
    accept: fc.constantFrom("application/json", "application/zip", "*/*", "text/html"),
    // Believed from the harness's trusted loopback proxy: garbage must not break the limiter.
    "x-forwarded-for": fc.constantFrom(
      "not-an-ip",
      "1.2.3.4, ::1, garbage",
      "::ffff:10.0.0.1",
      "",
      "999.1.1.1",
    ),
  },
  { requiredKeys: [] },
);

type TCredential = "none" | "apiKey" | "session" | "cookie-junk";
const credential = fc.constantFrom<TCredential>("none", "apiKey", "session", "session", "cookie-junk");

// --- harness ---------------------------------------------------------------------------------

const gw = useTestGateway();
let owner: Awaited<ReturnType<TTestGateway["createActor"]>>;
let partner: Awaited<ReturnType<TTestGateway["createActor"]>>;
beforeAll(async () => {
  owner = await gw.createActor({ plan: "enterprise", role: "OWNER" });
  partner = await gw.createActor({ plan: "enterprise", role: "OWNER", isPartner: true });
});

/** What the response must look like: below 500, and an error body we know. */
function contractProblem(t: TTarget, status: number, body: unknown): string | null {
  if (status >= 500) return `status ${status}: ${JSON.stringify(body)?.slice(0, 200)}`;
  if (status < 400) return null;
  // Node's HTTP parser refuses a request line and headers over 16 kB itself (431, no body),
  // before any of the service's code runs: the one error not in the contract's shape.
  if (status === 431 && body === undefined) return null;
  const b = body as { error?: unknown; message?: unknown } | undefined;
  if (typeof b?.error === "string") {
    if (!KNOWN_CODES.has(b.error)) return `unknown code ${b.error}`;
    return typeof b.message === "string" ? null : "error body without message";
  }
  // tRPC's own envelope (tRPC clients keep it); the contract's code rides in data.
  const data = (b?.error as { message?: unknown; data?: { error?: unknown } } | undefined) ?? undefined;
  if (t.transport === "trpc" && typeof data?.message === "string" && typeof data.data?.error === "string") {
    return KNOWN_CODES.has(data.data.error) ? null : `unknown tRPC code ${data.data.error}`;
  }
  return `status ${status}, not a contract error body: ${JSON.stringify(body)?.slice(0, 200)}`;
}

type TCase = {
  cred: TCredential;
  segments: string[];
  query: string;
  body: TBody;
  cookie: string;
  headers: Partial<Record<string, string>>;
  withHeaders: boolean;
};

async function fire(t: TTarget, c: TCase) {
  const who = t.access.auth === "partner" ? partner : owner;
  const headers: Record<string, string> = {};
  if (c.withHeaders) for (const [k, v] of Object.entries(c.headers)) if (v !== undefined) headers[k] = v;
  if (c.cred === "apiKey") headers.authorization = `Bearer ${who.key}`;
  // A fresh session each time: a fuzzed sign-out must not end the others'.
  if (c.cred === "session") {
    delete headers.authorization;
    headers.cookie = await gw.createSession(who.orgId, who.user.id);
  }
  if (c.cred === "cookie-junk") headers.cookie = c.cookie;
  let i = 0;
  const path =
    t.transport === "rest"
      ? `/api${t.path.replace(/\{[^}]+\}/g, () => c.segments[i++ % c.segments.length] ?? "x")}`
      : `/trpc/${t.path}`;
  const hasBody = t.method !== "GET";
  let url = path;
  const body = renderBody(c.body);
  if (t.transport === "trpc" && !hasBody) url += `?input=${pct(body)}&${c.query}`;
  else if (c.query) url += `?${c.query}`;
  headers["content-type"] ??= "application/json";
  return gw.request(t.method, url, {
    ip: freshIp(),
    headers,
    ...(hasBody ? { rawBody: body } : {}),
  });
}

describe("the fuzz covers the router", () => {
  it("has a REST target for every OpenAPI procedure and a tRPC target for every procedure", () => {
    const rest = catalog.rest.length;
    expect(targets.filter((t) => t.transport === "rest")).toHaveLength(rest);
    expect(targets.filter((t) => t.transport === "trpc")).toHaveLength(catalog.entries.length);
    expect(rest).toBeGreaterThan(10);
  });
});

describe.each(targets.map((t) => [t.label, t] as const))("%s", (_label, target) => {
  it("never answers 5xx, and every error is a contract body", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          cred: credential,
          segments: fc.array(pathSegment, { minLength: 1, maxLength: 2 }),
          query: queryFor(target.keys),
          // A tRPC query carries its input in the URL: Node refuses request lines over 16 kB
          // (431, before any of our code runs), so its documents are kept shallower.
          body: bodyFor(target.keys, target.transport === "trpc" && target.method === "GET" ? 700 : 20_000),
          cookie: cookieHeader,
          headers: extraHeaders,
          withHeaders: fc.boolean(),
        }),
        async (c) => {
          const res = await fire(target, c);
          const problem = contractProblem(target, res.status, res.body);
          if (problem) throw new Error(`${target.label}: ${problem}`);
        },
      ),
      { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }), endOnFailure: true },
    );
  });
});
