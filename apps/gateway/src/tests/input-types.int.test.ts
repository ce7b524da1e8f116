import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { routeCatalog, type TRouteEntry } from "@posture/platform";
import { appRouter } from "../router";
import { type TTestGateway, useTestGateway, type TTestResponse } from "../testing";
import { errorCode, freshIp } from "./helpers";
import {
  objectPaths,
  entries,
  reachable,
  sample,
  withField,
  type TSchema as TSampleSchema,
} from "./input-samples";

/**
 * Nothing is coerced: a REST body is a JSON object, a boolean is a boolean, a number a number.
 * trpc-to-openapi spreads the body into the input (an array became `{"0": …}`) and switches on zod
 * coercion of every number and boolean of the input on each request (`"yes"` and `"false"` became
 * `true`, for /trpc too afterwards). Routes and fields come from the router, so a route added later
 * is covered the day it lands. FUZZ_RUNS / FUZZ_SEED as in fuzz.int.test.ts.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 8);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const settings = { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }), endOnFailure: true };

type TDef = { type: string; [k: string]: unknown };
type TSchema = { _zod: { def: TDef } };
const catalog = routeCatalog(appRouter);

const WRAPPERS = new Set(["optional", "nullable", "default", "prefault", "readonly", "nonoptional"]);
function inner(s: TSchema): TSchema {
  let t = s;
  while (WRAPPERS.has(t._zod.def.type)) t = t._zod.def.innerType as TSchema;
  return t;
}

/** The paths of the fields of a given zod type, through nested objects. */
function fieldsOfType(s: TSchema | undefined, type: string, prefix: string[] = []): string[][] {
  if (!s) return [];
  const o = inner(s);
  if (o._zod.def.type !== "object") return [];
  return Object.entries(o._zod.def.shape as Record<string, TSchema>).flatMap(([key, field]) => {
    const t = inner(field);
    if (t._zod.def.type === type) return [[...prefix, key]];
    return t._zod.def.type === "object" ? fieldsOfType(t, type, [...prefix, key]) : [];
  });
}

type TRoute = { label: string; method: string; path: string; input: TSchema | undefined; partner: boolean };
const rest: TRoute[] = catalog.rest.map((e) => ({
  label: `${e.rest.method} /api${e.rest.path}`,
  method: e.rest.method,
  path: e.rest.path.replace(/\{[^}]+\}/g, "00000000-0000-4000-8000-000000000000"),
  input: e.input as TSchema | undefined,
  partner: e.access?.auth === "partner",
}));
const withBody = rest.filter((r) => r.method !== "GET" && r.method !== "DELETE");
const queryRoutes = rest.filter((r) => r.method === "GET" || r.method === "DELETE");
const bodyBooleans = withBody.flatMap((r) => fieldsOfType(r.input, "boolean").map((f) => [r, f] as const));
const queryNumbers = queryRoutes.flatMap((r) => fieldsOfType(r.input, "number").map((f) => [r, f] as const));

const gw = useTestGateway();
let owner: Awaited<ReturnType<TTestGateway["createActor"]>>;
let partner: Awaited<ReturnType<TTestGateway["createActor"]>>;
beforeAll(async () => {
  owner = await gw.createActor({ plan: "enterprise", role: "OWNER" });
  partner = await gw.createActor({ plan: "enterprise", role: "OWNER", isPartner: true });
});

/** As a signed-in OWNER of an enterprise organization (a fresh session: a fuzzed sign-out ends only it). */
async function call(r: TRoute, o: { rawBody?: string; query?: string }): Promise<TTestResponse> {
  const who = r.partner ? partner : owner;
  const cookie = await gw.createSession(who.orgId, who.user.id);
  return gw.request(r.method, `/api${r.path}${o.query ? `?${o.query}` : ""}`, {
    ip: freshIp(),
    headers: { cookie, "content-type": "application/json" },
    ...(o.rawBody === undefined ? {} : { rawBody: o.rawBody }),
  });
}

type TDetails = Array<{ path: string; message: string }>;
function expectInvalidInput(res: TTestResponse, label: string, path?: string): void {
  const body = res.body as { error?: unknown; message?: unknown; details?: TDetails };
  expect({ label, status: res.status, error: body?.error }).toEqual({
    label,
    status: 400,
    error: "invalid_input",
  });
  expect(typeof body.message).toBe("string");
  if (path !== undefined) expect(body.details?.map((d) => d.path)).toContain(path);
}

const nestedBody = (path: readonly string[], value: unknown): unknown =>
  path.reduceRight<unknown>((acc, key) => ({ [key]: acc }), value);

describe("what the tests cover", () => {
  it("finds the body routes, their boolean fields and the numeric query fields", () => {
    expect(withBody.length).toBeGreaterThanOrEqual(20);
    const labels = bodyBooleans.map(([r, f]) => `${r.label} ${f.join(".")}`);
    expect(labels).toContain("PATCH /api/partner/settings notifyUnhealthy");
    expect(queryNumbers.map(([r, f]) => `${r.label} ${f.join(".")}`)).toContain("GET /api/findings limit");
  });
});

describe("the reported cases", () => {
  it("refuses an array as the body of POST /api/compliance/reports", async () => {
    const r = withBody.find((x) => x.label === "POST /api/compliance/reports");
    if (!r) throw new Error("route missing");
    const res = await call(r, { rawBody: JSON.stringify([{ framework: "soc2" }]) });
    expectInvalidInput(res, r.label, "");
  });

  it("refuses an array as the body of PATCH /api/partner/settings", async () => {
    const r = withBody.find((x) => x.label === "PATCH /api/partner/settings");
    if (!r) throw new Error("route missing");
    expectInvalidInput(await call(r, { rawBody: "[]" }), r.label, "");
    expectInvalidInput(await call(r, { rawBody: '[{"notifyUnhealthy":true}]' }), r.label, "");
  });

  it('refuses notifyUnhealthy: "yes" and "false", over REST and then over tRPC', async () => {
    const r = withBody.find((x) => x.label === "PATCH /api/partner/settings");
    if (!r) throw new Error("route missing");
    for (const v of ["yes", "false", 1, 0, null])
      expectInvalidInput(await call(r, { rawBody: JSON.stringify({ notifyUnhealthy: v }) }), r.label);
    // The REST calls above must not have turned coercion on for the shared schema.
    const name = catalog.at("PATCH", "/partner/settings")?.key;
    const trpc = await gw.request("POST", `/trpc/${name}`, {
      ip: freshIp(),
      headers: { cookie: await gw.createSession(partner.orgId, partner.user.id) },
      body: { notifyUnhealthy: "yes" },
    });
    expect(trpc.status).toBe(400);
    const settings = await call(r, { rawBody: JSON.stringify({ notifyUnhealthy: false }) });
    expect(settings.status).toBe(200);
    expect((settings.body as { notifyUnhealthy?: unknown }).notifyUnhealthy).toBe(false);
  });

  it("converts query numbers strictly and takes only true/false for a query boolean", async () => {
    const findings = queryRoutes.find((x) => x.label === "GET /api/findings");
    const timeline = queryRoutes.find((x) => x.label === "GET /api/timeline");
    if (!findings || !timeline) throw new Error("route missing");
    const ok = await call(findings, { query: "limit=5&offset=0" });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ limit: 5, offset: 0 });
    for (const bad of ["1e1", "0x10", "%205", "five", "5.5"])
      expectInvalidInput(await call(findings, { query: `limit=${bad}` }), `limit=${bad}`, "limit");
    expect((await call(timeline, { query: "significant=true" })).status).toBe(200);
    expect((await call(timeline, { query: "significant=false" })).status).toBe(200);
    for (const bad of ["yes", "1", "TRUE", "on"])
      expectInvalidInput(await call(timeline, { query: `significant=${bad}` }), bad, "significant");
  });
});

const notAnObject = fc.oneof(
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
  fc.string({ maxLength: 10 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
);

describe.each(withBody.map((r) => [r.label, r] as const))("body of %s", (_label, r) => {
  it("is a JSON object: an array, string, number, boolean or null is 400 invalid_input", async () => {
    await fc.assert(
      fc.asyncProperty(notAnObject, async (body) => {
        expectInvalidInput(await call(r, { rawBody: JSON.stringify(body) }), r.label);
      }),
      settings,
    );
  });

  it("never answers 5xx for arbitrary JSON", async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 4 }), async (body) => {
        const res = await call(r, { rawBody: JSON.stringify(body) });
        expect(res.status, `${r.label} ${JSON.stringify(body)?.slice(0, 200)}`).toBeLessThan(500);
        if (res.status >= 400) expect(typeof errorCode(res)).toBe("string");
      }),
      settings,
    );
  });
});

const notABoolean = fc.oneof(
  fc.constantFrom("true", "false", "yes", "no", "1", "0", "", "on"),
  fc.string({ maxLength: 8 }),
  fc.integer(),
  fc.constant(null),
  fc.array(fc.boolean(), { maxLength: 2 }),
  fc.constant({}),
);

describe.each(bodyBooleans.map(([r, f]) => [`${r.label} ${f.join(".")}`, r, f] as const))(
  "boolean %s",
  (_label, r, field) => {
    it("takes only true or false", async () => {
      await fc.assert(
        fc.asyncProperty(notABoolean, async (v) => {
          const res = await call(r, { rawBody: JSON.stringify(nestedBody(field, v)) });
          expectInvalidInput(res, `${r.label} ${JSON.stringify(v)}`, field.join("."));
        }),
        settings,
      );
    });
  },
);

describe.each(queryNumbers.map(([r, f]) => [`${r.label} ?${f.join(".")}`, r, f] as const))(
  "query number %s",
  (_label, r, field) => {
    it("takes a decimal number only", async () => {
      const notANumber = fc.oneof(
        fc.constantFrom("1e1", "0x1f", " 1", "1 ", "Infinity", "NaN", "true", "1,2", "+1"),
        fc.string({ maxLength: 6 }).filter((s) => !/^-?(?:0|[1-9]\d*)(?:\.\d+)?$/.test(s) && s !== ""),
      );
      await fc.assert(
        fc.asyncProperty(notANumber, async (v) => {
          const res = await call(r, { query: `${field.join(".")}=${encodeURIComponent(v)}` });
          expectInvalidInput(res, `${r.label} ${JSON.stringify(v)}`, field.join("."));
        }),
        settings,
      );
    });
  },
);

// ---------------------------------------------------------------------------------------------
// Requests are strict: a field or query parameter an operation does not take is 400 naming it,
// at any depth, over REST and tRPC alike. Responses stay open. Every procedure of the router is
// walked, with a sample input built from its own schema (input-samples.ts).

const UNKNOWN = "zzNotAField";

/** Inputs the sampler cannot guess: a refinement across fields, a union of literals. */
const SAMPLE_OVERRIDES: Record<string, Record<string, unknown>> = {
  "connectors.create": { mode: "demo", config: {} },
  "integrations.ticketing.set": { provider: "github", project: "acme/repo", token: "ghp_example" },
  "policies.create": { match: { minSeverity: "HIGH" } },
  "policies.update": { match: { minSeverity: "HIGH" } },
  "preventionRules.create": { match: { minSeverity: "HIGH" } },
  "preventionRules.update": { match: { minSeverity: "HIGH" } },
  "reports.compliance.get": { period: 30 },
};

type TCase = { name: string; e: TRouteEntry; input: TSampleSchema | undefined; value: unknown };
const cases: TCase[] = entries.map((e) => {
  const name = e.key;
  const input = e.input as TSampleSchema | undefined;
  const base = input ? sample(input) : undefined;
  const value =
    SAMPLE_OVERRIDES[name] && typeof base === "object" ? { ...base, ...SAMPLE_OVERRIDES[name] } : base;
  return { name, e, input, value };
});
const objectInputs = cases.filter((c) => typeof c.value === "object" && c.value !== null);

const restOf = (c: TCase) => {
  const o = c.e.rest;
  if (!o) return undefined;
  const params = [...o.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? "");
  const value = (c.value ?? {}) as Record<string, unknown>;
  const path = o.path.replace(/\{([^}]+)\}/g, (_, k: string) => encodeURIComponent(String(value[k])));
  const fields = Object.fromEntries(Object.entries(value).filter(([k]) => !params.includes(k)));
  return { method: o.method, path: `/api${path}`, params, fields, label: `${o.method} /api${o.path}` };
};

function queryString(fields: Record<string, unknown>, extra = ""): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(fields))
    for (const x of Array.isArray(v) ? v : [v]) q.append(k, typeof x === "string" ? x : JSON.stringify(x));
  const s = [q.toString(), extra].filter(Boolean).join("&");
  return s ? `?${s}` : "";
}

async function as(c: TCase) {
  const who = c.e.access?.auth === "partner" ? partner : owner;
  return gw.createSession(who.orgId, who.user.id);
}

async function restCall(c: TCase, o: { query?: string; body?: unknown }): Promise<TTestResponse> {
  const r = restOf(c);
  if (!r) throw new Error(`${c.name} has no REST route`);
  return gw.request(r.method, `${r.path}${o.query ?? ""}`, {
    ip: freshIp(),
    headers: { cookie: await as(c) },
    ...(o.body === undefined ? {} : { body: o.body }),
  });
}

type TTrpcError = { error?: { data?: { error?: string; details?: TDetails; httpStatus?: number } } };
async function trpc(c: TCase, input: unknown): Promise<TTestResponse> {
  const headers = { cookie: await as(c) };
  if (c.e.kind === "query")
    return gw.request("GET", `/trpc/${c.name}?input=${encodeURIComponent(JSON.stringify(input))}`, {
      ip: freshIp(),
      headers,
    });
  return gw.request("POST", `/trpc/${c.name}`, { ip: freshIp(), headers, body: input });
}

const dotted = (path: Array<string | number>, key: string) => [...path, key].join(".");

describe("strict requests: the schemas", () => {
  it("has a valid sample input for every procedure that takes one", () => {
    const invalid = cases
      .filter((c) => c.input && !c.input.safeParse(c.value).success)
      .map((c) => `${c.name} ${JSON.stringify(c.value)}`);
    expect(invalid).toEqual([]);
    // Nested objects are reached (inside optional fields and arrays too), not only the top level.
    const update = cases.find((c) => c.name === "incidents.update");
    expect(objectPaths(update?.value)).toEqual([[], ["postMortem"], ["postMortem", "actionItems", 0]]);
    expect(objectInputs.length).toBeGreaterThanOrEqual(45);
  });

  it("declares every object of every input strict, and none of any output", () => {
    const inputObjects = new Set(
      cases.flatMap((c) => c.e.inputs.flatMap(reachable)).filter((s) => s._zod.def.type === "object"),
    );
    const open = cases.flatMap((c) =>
      c.e.inputs
        .flatMap(reachable)
        .filter((s) => s._zod.def.type === "object")
        .filter((s) => (s._zod.def.catchall as TSampleSchema | undefined)?._zod.def.type !== "never")
        .map(() => c.name),
    );
    expect(open).toEqual([]);
    const outputObjects = cases.flatMap((c) =>
      reachable(c.e.output).filter((s) => s._zod.def.type === "object"),
    );
    expect(outputObjects.length).toBeGreaterThan(100);
    // An input schema is never an output schema: making one strict would make a response fail.
    expect(outputObjects.filter((s) => inputObjects.has(s))).toEqual([]);
    expect(outputObjects.filter((s) => s._zod.def.catchall !== undefined)).toEqual([]);
  });
});

describe.each(cases.filter((c) => restOf(c)).map((c) => [restOf(c)?.label ?? c.name, c] as const))(
  "strict request %s",
  (_label, c) => {
    const r = restOf(c);
    if (!r) return;
    const body = r.method !== "GET" && r.method !== "DELETE";

    if (body) {
      it("refuses an unknown field at every depth of a valid body, naming it", async () => {
        for (const at of objectPaths(r.fields)) {
          const res = await restCall(c, { body: withField(r.fields, at, UNKNOWN, true) });
          expectInvalidInput(res, `${r.label} ${dotted(at, UNKNOWN)}`, dotted(at, UNKNOWN));
        }
      });
      it("refuses a query parameter (a body operation takes none) and a path parameter in the body", async () => {
        expectInvalidInput(await restCall(c, { body: r.fields, query: `?${UNKNOWN}=1` }), r.label, UNKNOWN);
        for (const param of r.params)
          expectInvalidInput(await restCall(c, { body: { ...r.fields, [param]: "other" } }), r.label, param);
      });
    } else {
      it("refuses an unknown query parameter beside valid ones, naming it, even without a value", async () => {
        const valid = await restCall(c, { query: queryString(r.fields) });
        expect({ status: valid.status, body: valid.body }).not.toMatchObject({ status: 400 });
        for (const extra of [`${UNKNOWN}=1`, `${UNKNOWN}=`, UNKNOWN]) {
          const res = await restCall(c, { query: queryString(r.fields, extra) });
          expectInvalidInput(res, `${r.label} ?${extra}`, UNKNOWN);
        }
        for (const param of r.params)
          expectInvalidInput(
            await restCall(c, { query: queryString(r.fields, `${param}=other`) }),
            r.label,
            param,
          );
      });
      if (r.method === "DELETE") {
        it("refuses a body field (DELETE takes none)", async () => {
          expectInvalidInput(await restCall(c, { body: { [UNKNOWN]: true } }), r.label, UNKNOWN);
        });
      }
    }
  },
);

describe.each(cases.map((c) => [c.name, c] as const))("strict tRPC input %s", (_name, c) => {
  it("refuses an unknown field at every depth, naming it", async () => {
    if (typeof c.value !== "object" || c.value === null) {
      // No input (z.void()): any input at all is refused.
      const res = await trpc(c, { [UNKNOWN]: true });
      expect(res.status).toBe(400);
      expect((res.body as TTrpcError).error?.data?.error).toBe("invalid_input");
      return;
    }
    for (const at of objectPaths(c.value)) {
      const res = await trpc(c, withField(c.value, at, UNKNOWN, true));
      const data = (res.body as TTrpcError).error?.data;
      expect({ at, status: res.status, error: data?.error }).toEqual({
        at,
        status: 400,
        error: "invalid_input",
      });
      expect(data?.details?.map((d) => d.path)).toContain(dotted(at, UNKNOWN));
    }
  });
});

describe("the reported case: a typo on PATCH /api/partner/settings", () => {
  it('is 400 naming "notifyUnhealty", and changes nothing', async () => {
    const cookie = await gw.createSession(partner.orgId, partner.user.id);
    const before = await gw.request("PATCH", "/api/partner/settings", {
      ip: freshIp(),
      headers: { cookie },
      body: { notifyUnhealthy: false },
    });
    expect(before.status).toBe(200);
    const typo = await gw.request("PATCH", "/api/partner/settings", {
      ip: freshIp(),
      headers: { cookie },
      body: { notifyUnhealty: true },
    });
    expect(typo.status).toBe(400);
    expect(typo.body).toMatchObject({
      error: "invalid_input",
      details: [{ path: "notifyUnhealty", message: "unknown field" }],
    });
    expect((typo.body as { message: string }).message).toContain("notifyUnhealthy");
    const after = await gw.request("PATCH", "/api/partner/settings", {
      ip: freshIp(),
      headers: { cookie },
      body: {},
    });
    expect((after.body as { notifyUnhealthy?: unknown }).notifyUnhealthy).toBe(false);
  });

  it("answers 401 before 400: an unknown field from a caller without credentials is unauthenticated", async () => {
    const res = await gw.request("PATCH", "/api/partner/settings", {
      ip: freshIp(),
      body: { notifyUnhealty: true },
    });
    expect(res.status).toBe(401);
  });
});

describe("a connector's config: closed, per mode", () => {
  it("refuses a misspelt field and a field of the other mode, naming them", async () => {
    const cookie = await gw.createSession(owner.orgId, owner.user.id);
    const post = (config: unknown) =>
      gw.request("POST", "/api/connectors", {
        ip: freshIp(),
        headers: { cookie },
        body: { type: "google_workspace", displayName: "Strict", mode: "demo", config },
      });
    expectInvalidInput(await post({ filecount: 20 }), "filecount", "config.filecount");
    const other = await post({ fileCount: 20, domain: "acme.example" });
    expectInvalidInput(other, "domain in demo mode", "config.domain");
  });

  it("uses fileCount (the scan and behaviour tests' field is real, not ignored)", async () => {
    const cookie = await gw.createSession(owner.orgId, owner.user.id);
    const resources: number[] = [];
    for (const fileCount of [20, 60]) {
      const created = await gw.request("POST", "/api/connectors", {
        ip: freshIp(),
        headers: { cookie },
        body: {
          type: "google_workspace",
          displayName: `Size ${fileCount}`,
          mode: "demo",
          config: { fileCount },
        },
      });
      expect(created.status).toBe(201);
      const id = (created.body as { id: string }).id;
      const scan = await gw.request("POST", `/api/connectors/${id}/sync`, {
        ip: freshIp(),
        headers: { cookie },
      });
      expect(scan.status).toBe(200);
      resources.push((scan.body as { resources: number }).resources);
    }
    expect(resources[1]).toBeGreaterThan(resources[0] ?? Infinity);
  });
});
