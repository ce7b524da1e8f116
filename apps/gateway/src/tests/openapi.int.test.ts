import { beforeAll, describe, expect, it } from "vitest";
import { ERROR_STATUS, routeCatalog, type TErrorCode, type TMeta } from "@posture/platform";
import { EVENT_DATA_SCHEMAS, EVENT_TYPES } from "@posture/webhooks";
import { appRouter } from "../router";
import { useTestGateway } from "../testing";
import { freshIp } from "./helpers";

type TOp = {
  operationId?: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ name: string; in: string; required?: boolean }>;
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>;
};
type TDoc = {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, TOp>>;
  webhooks?: Record<
    string,
    { post?: TOp & { requestBody?: { content: Record<string, { schema: TBodySchema }> } } }
  >;
  components: { schemas?: Record<string, unknown>; securitySchemes?: Record<string, unknown> };
};

type TBodySchema = {
  required?: string[];
  properties?: Record<string, { const?: string; required?: string[]; properties?: Record<string, unknown> }>;
};

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
const procedures = routeCatalog(appRouter)
  .rest.map((e) => e.meta)
  .filter((m): m is TMeta & { openapi: NonNullable<TMeta["openapi"]> } => Boolean(m?.openapi));

const gw = useTestGateway();
let doc: TDoc;
let html: string;
let docsCsp: string | null;
beforeAll(async () => {
  const res = await gw.request("GET", "/api/openapi.json", { ip: freshIp() });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  doc = res.body as TDoc;
  const page = await gw.request("GET", "/api/docs", { ip: freshIp() });
  expect(page.status).toBe(200);
  expect(page.headers.get("content-type")).toMatch(/^text\/html/);
  html = page.text;
  docsCsp = page.headers.get("content-security-policy");
});

function operations(): Array<[string, string, TOp]> {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([m]) => METHODS.includes(m))
      .map(([m, op]) => [path, m, op] as [string, string, TOp]),
  );
}

/** Every `$ref` anywhere in the document, with where it was found. */
function refs(node: unknown, at = "#"): Array<[string, string]> {
  if (Array.isArray(node)) return node.flatMap((n, i) => refs(n, `${at}/${i}`));
  if (node === null || typeof node !== "object") return [];
  return Object.entries(node).flatMap(([k, v]) =>
    k === "$ref" && typeof v === "string" ? [[at, v] as [string, string]] : refs(v, `${at}/${k}`),
  );
}

function resolve(ref: string): unknown {
  if (!ref.startsWith("#/")) return undefined;
  return ref
    .slice(2)
    .split("/")
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], doc);
}

describe("GET /api/openapi.json", () => {
  it("is an OpenAPI 3 document with info and a server under /api", () => {
    expect(doc.openapi).toMatch(/^3\.\d+\.\d+$/);
    expect(doc.info.title).toBeTruthy();
    expect(doc.info.version).toBeTruthy();
    expect((doc as unknown as { servers: Array<{ url: string }> }).servers[0]?.url).toMatch(/\/api$/);
  });

  it("lists every REST procedure of the router at its path and method", () => {
    const missing = procedures
      .filter((m) => !doc.paths[m.openapi.path]?.[m.openapi.method.toLowerCase()])
      .map((m) => `${m.openapi.method} ${m.openapi.path}`);
    expect(missing).toEqual([]);
    // Plus the gateway's own two documents.
    expect(doc.paths["/openapi.json"]?.get).toBeDefined();
    expect(doc.paths["/docs"]?.get).toBeDefined();
    expect(doc.paths["/health/live"]?.get).toBeDefined();
    // Issue 32: the trackers' signed webhook, an Express route (it reads the raw body).
    expect(doc.paths["/integrations/ticketing/events/{hookId}"]?.post).toBeDefined();
    expect(operations()).toHaveLength(procedures.length + 3);
  });

  it("gives every operation a unique operationId, a success response and the contract's error body", () => {
    const ids = operations().map(([, , op]) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const [path, method, op] of operations()) {
      const statuses = Object.keys(op.responses ?? {});
      expect(
        statuses.some((s) => /^2\d\d$/.test(s)),
        `${method} ${path} has no 2xx`,
      ).toBe(true);
      const errorStatuses = statuses.filter(
        (x) => !x.startsWith("2") && x !== "304" && !(path === "/health" && x === "503"),
      );
      for (const s of errorStatuses) {
        const schema = op.responses?.[s]?.content?.["application/json"]?.schema as {
          allOf?: Array<{ $ref?: string; properties?: { error?: { enum?: string[] } } }>;
        };
        expect(schema.allOf?.[0]).toEqual({ $ref: "#/components/schemas/Error" });
        // The codes enumerated here are exactly those of this status in the contract's table.
        const codes = schema.allOf?.[1]?.properties?.error?.enum ?? [];
        expect(codes.length, `${method} ${path} ${s}`).toBeGreaterThan(0);
        for (const code of codes)
          expect(ERROR_STATUS[code as TErrorCode], `${code} under ${s}`).toBe(Number(s));
      }
      expect(statuses).toContain("500");
      expect(statuses).toContain("400");
    }
    expect(Object.keys(doc.components.schemas ?? {}).filter((n) => n.startsWith("error."))).toEqual([]);
  });

  it("documents every webhook event with its data fields and signature headers", () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(Object.keys(doc.webhooks ?? {}).sort()).toEqual([...EVENT_TYPES].sort());
    for (const type of EVENT_TYPES) {
      const op = doc.webhooks?.[type]?.post;
      const body = op?.requestBody?.content["application/json"]?.schema;
      expect(body?.required).toEqual(["event", "data", "id", "createdAt"]);
      expect(body?.properties?.event?.const).toBe(type);
      // The data schema is the one deliveries are validated against: the same fields, all required.
      const fields = Object.keys(EVENT_DATA_SCHEMAS[type].shape).sort();
      expect(Object.keys(body?.properties?.data?.properties ?? {}).sort(), type).toEqual(fields);
      expect([...(body?.properties?.data?.required ?? [])].sort(), type).toEqual(fields);
      expect(op?.parameters?.map((p) => p.name)).toEqual(
        expect.arrayContaining([
          "X-Service-Signature",
          "X-Service-Event",
          "X-Service-Delivery",
          "webhook-signature",
        ]),
      );
      expect(Object.keys(op?.responses ?? {})).toContain("410");
    }
  });

  it("resolves every $ref", () => {
    const all = refs(doc);
    expect(all.length).toBeGreaterThan(0);
    const broken = all.filter(([, ref]) => resolve(ref) === undefined).map(([at, ref]) => `${at} -> ${ref}`);
    expect(broken).toEqual([]);
  });

  it("declares every path parameter, and only existing security schemes", () => {
    const schemes = Object.keys(doc.components.securitySchemes ?? {});
    for (const [path, method, op] of operations()) {
      for (const name of [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1])) {
        const p = op.parameters?.find((x) => x.in === "path" && x.name === name);
        expect(p?.required, `${method} ${path}: path parameter ${name}`).toBe(true);
      }
      for (const requirement of op.security ?? []) {
        for (const scheme of Object.keys(requirement)) expect(schemes).toContain(scheme);
      }
    }
  });

  it("states each operation's security, plan and role from its access meta", () => {
    for (const meta of procedures) {
      const op = doc.paths[meta.openapi.path]?.[meta.openapi.method.toLowerCase()] as
        (TOp & { "x-access"?: unknown }) | undefined;
      const access = meta.access;
      if (!op || !access) continue;
      expect(op["x-access"]).toEqual(access);
      const schemes = (op.security ?? []).flatMap((r) => Object.keys(r)).sort();
      const expected = {
        public: [],
        session: ["session"],
        apiKey: ["apiKey", "session"],
        partner: ["apiKey", "session"],
      };
      expect(schemes).toEqual(expected[access.auth]);
      // An API key's requirement names the scope the call needs: read for a GET, write otherwise.
      const keyScopes = (op.security ?? []).find((r) => "apiKey" in r)?.apiKey;
      if (access.auth === "apiKey" || access.auth === "partner")
        expect(keyScopes, `${meta.openapi.method} ${meta.openapi.path}`).toEqual([
          meta.openapi.method === "GET" ? "read" : "write",
        ]);
      const statuses = Object.keys(op.responses ?? {});
      if (access.auth !== "public") expect(statuses).toContain("401");
      if (access.plan || access.feature) expect(statuses).toContain("402");
      if (access.role || access.auth === "session" || access.auth === "partner")
        expect(statuses).toContain("403");
      const probe = meta.openapi.path === "/health" || meta.openapi.path === "/health/live";
      if (!probe) expect(statuses).toContain("429");
      if (meta.openapi.path !== "/health/live") expect(statuses).toContain("503");
      // Readiness's 503 has the 200's body (not its ETag: only a 200 is tagged).
      if (meta.openapi.path === "/health")
        expect(op.responses?.["503"]?.content).toEqual(op.responses?.["200"]?.content);
      // Every JSON GET is conditional (tests/conditional.int.test.ts); files are not.
      const conditional = meta.openapi.method === "GET" && !meta.download;
      expect(statuses.includes("304"), `${meta.openapi.path} 304`).toBe(conditional);
      expect(
        (op.parameters ?? []).some((p) => "name" in p && p.name === "If-None-Match"),
        `${meta.openapi.path} If-None-Match`,
      ).toBe(conditional);
      for (const code of meta.errors ?? []) {
        const schema = op.responses?.[String(ERROR_STATUS[code])]?.content?.["application/json"]?.schema as {
          allOf: Array<{ properties?: { error?: { enum?: string[] } } }>;
        };
        expect(schema.allOf[1]?.properties?.error?.enum, `${meta.openapi.path} declares ${code}`).toContain(
          code,
        );
      }
      const successStatus = (meta as { successStatus?: number }).successStatus;
      if (successStatus !== undefined) expect(statuses).toContain(String(successStatus));
    }
  });
});

describe("error codes per operation", () => {
  const codesOf = (path: string, method: string, status: string) =>
    (
      doc.paths[path]?.[method]?.responses?.[status]?.content?.["application/json"]?.schema as {
        allOf: Array<{ properties?: { error?: { enum?: string[] } } }>;
      }
    ).allOf[1]?.properties?.error?.enum;

  it("lists what each operation's access, input and own meta imply", () => {
    expect(codesOf("/findings/{id}/ticket", "post", "409")).toEqual(["conflict", "ticket_exists"]);
    expect(codesOf("/findings/{id}/ticket", "post", "400")).toEqual([
      "invalid_input",
      "integration_not_configured",
    ]);
    expect(codesOf("/findings/{id}/ticket", "post", "502")).toEqual(["upstream_unavailable"]);
    expect(codesOf("/auth/sign-in", "post", "401")).toEqual(["invalid_credentials"]);
    expect(codesOf("/keys", "post", "403")).toEqual([
      "session_required",
      "forbidden",
      "csrf_rejected",
      "insufficient_scope",
    ]);
    expect(codesOf("/keys", "post", "413")).toEqual(["payload_too_large"]);
    expect(codesOf("/usage", "get", "503")).toEqual(["service_unavailable"]);
    expect(doc.paths["/usage"]?.get?.responses?.["404"]).toBeUndefined();
    expect(doc.paths["/health/live"]?.get?.responses?.["429"]).toBeUndefined();
  });
});

describe("GET /api/docs", () => {
  it("is Scalar's API reference, loaded from this origin only", () => {
    expect(html).toMatch(/^<!doctype html>/i);
    const scripts = [...html.matchAll(/<script\b[^>]*>/gi)].map((m) => m[0]);
    expect(scripts).toHaveLength(2);
    for (const tag of scripts) expect(tag).toMatch(/src="\/api\/docs\/assets\/[\w.-]+\.js"/);
    // No inline script, nothing from another origin.
    expect(html).not.toMatch(/<script>[^<]/i);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//i);
  });

  it("sends a CSP that allows this origin's scripts and nothing more", () => {
    const csp = docsCsp ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    expect(csp).not.toMatch(/https?:/);
  });

  it("serves the renderer's bundle and its configuration, pointing at the document", async () => {
    const [bundlePath, initPath] = [...html.matchAll(/src="\/api(\/docs\/assets\/[\w.-]+\.js)"/g)].map(
      (m) => m[1],
    );
    const bundle = await gw.request("GET", `/api${bundlePath ?? ""}`, { ip: freshIp() });
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get("content-type")).toMatch(/javascript/);
    expect(bundle.headers.get("cache-control")).toContain("immutable");
    expect(bundle.text).toContain("createApiReference");
    expect(bundle.text.length).toBeGreaterThan(1_000_000);
    const init = await gw.request("GET", `/api${initPath ?? ""}`, { ip: freshIp() });
    expect(init.status).toBe(200);
    expect(init.text).toContain('"url":"/api/openapi.json"');
    expect(init.text).toContain('"telemetry":false');
    expect(init.text).toContain('"withDefaultFonts":false');
  });
});

/** Every object under `node`, with its JSON pointer. */
function objects(node: unknown, at = "#"): Array<[string, Record<string, unknown>]> {
  const out: Array<[string, Record<string, unknown>]> = [];
  const stack: Array<[unknown, string]> = [[node, at]];
  while (stack.length > 0) {
    const [n, p] = stack.pop() as [unknown, string];
    if (Array.isArray(n)) n.forEach((x, i) => stack.push([x, `${p}/${i}`]));
    else if (n !== null && typeof n === "object") {
      out.push([p, n as Record<string, unknown>]);
      for (const [k, v] of Object.entries(n)) stack.push([v, `${p}/${k}`]);
    }
  }
  return out;
}

describe("what integrators read in the document", () => {
  it("keeps responses and webhook payloads open: no additionalProperties: false", () => {
    const closed = [
      ...operations().flatMap(([path, method, op]) =>
        objects(op.responses, `${method} ${path} responses`).filter(
          ([, o]) => o.additionalProperties === false,
        ),
      ),
      ...objects(doc.webhooks, "webhooks").filter(([, o]) => o.additionalProperties === false),
    ].map(([at]) => at);
    expect(closed).toEqual([]);
    // The responses do describe objects with properties (the check above is not vacuous).
    const usage = doc.paths["/usage"]?.get?.responses?.["200"]?.content?.["application/json"]?.schema as {
      properties?: Record<string, unknown>;
    };
    expect(Object.keys(usage.properties ?? {})).toContain("plan");
  });

  it("closes every request body: each object schema in it says additionalProperties: false", () => {
    const bodies = operations().flatMap(([path, method, op]) => {
      const body = (op as { requestBody?: unknown }).requestBody;
      return body === undefined ? [] : [[`${method} ${path}`, body] as const];
    });
    expect(bodies.length).toBeGreaterThanOrEqual(15);
    const schemas = bodies.flatMap(([at, body]) => objects(body, at).filter(([, o]) => o.type === "object"));
    // A map (a record: any key, values of one schema) is open by design; it is named here.
    const maps = schemas.filter(([, o]) => o.propertyNames !== undefined && o.properties === undefined);
    expect(maps.map(([at]) => at)).toEqual([
      "post /connectors/content/application/json/schema/properties/credentials",
    ]);
    const open = schemas
      .filter(([, o]) => !maps.some(([, m]) => m === o) && o.additionalProperties !== false)
      .map(([at]) => at);
    expect(open).toEqual([]);
    // Nested objects are covered too, not only the top level of each body.
    const nested = schemas.filter(([at]) => !at.endsWith("/json/schema")).map(([at]) => at);
    expect(nested).toEqual(
      expect.arrayContaining([
        "post /connectors/content/application/json/schema/properties/config",
        "post /policies/content/application/json/schema/properties/match",
        "patch /incidents/{id}/content/application/json/schema/properties/postMortem/anyOf/0",
        "patch /incidents/{id}/content/application/json/schema/properties/postMortem/anyOf/0/properties/actionItems/items",
      ]),
    );
  });

  it("has no ±9007199254740991 as a bound or example anywhere", () => {
    const bad = objects(doc)
      .flatMap(([at, o]) =>
        ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "example", "default"]
          .filter((k) => typeof o[k] === "number" && Math.abs(o[k] as number) >= Number.MAX_SAFE_INTEGER)
          .map((k) => `${at}/${k}`),
      )
      .concat(
        objects(doc)
          .filter(([, o]) => Array.isArray(o.examples))
          .flatMap(([at, o]) =>
            (o.examples as unknown[])
              .filter((e) => typeof e === "number" && Math.abs(e) >= Number.MAX_SAFE_INTEGER)
              .map(() => `${at}/examples`),
          ),
      );
    expect(bad).toEqual([]);
  });

  it("gives every count-like number a minimum of 0 and every score the range 0–100", () => {
    const COUNT =
      /(count|total|offset|limit|page|pages|used|usedToday|size\w*|attempts?|durationMs|seconds|findings\w*|resources|clients|controls|satisfied|partial|gap|periodDays|periodsLearned)$/i;
    const SCORE = /^(score|postureScore|avgScore|previousScore)$/;
    const problems: string[] = [];
    for (const [at, o] of objects(doc)) {
      const props = o.properties as Record<string, Record<string, unknown>> | undefined;
      if (!props || typeof props !== "object") continue;
      for (const [name, raw] of Object.entries(props)) {
        // A nullable number is {anyOf: [{type: integer…}, {type: null}]}.
        const variants = Array.isArray(raw.anyOf) ? (raw.anyOf as Array<Record<string, unknown>>) : [raw];
        for (const s of variants) {
          if (s.type !== "integer" && s.type !== "number") continue;
          if (SCORE.test(name) && (s.minimum !== 0 || s.maximum !== 100))
            problems.push(`${at}/${name}: score`);
          else if (COUNT.test(name) && typeof s.minimum !== "number")
            problems.push(`${at}/${name}: no minimum`);
          else if (COUNT.test(name) && (s.minimum as number) < 0) problems.push(`${at}/${name}: negative`);
        }
      }
    }
    expect(problems).toEqual([]);
    const findings = doc.paths["/findings"]?.get?.responses?.["200"]?.content?.["application/json"]
      ?.schema as {
      properties: Record<string, { minimum?: number }>;
    };
    expect(findings.properties.total?.minimum).toBe(0);
  });

  it("documents RateLimit-Policy and RateLimit on every response of a limited operation", () => {
    for (const [path, method, op] of operations()) {
      const probe = path === "/health" || path === "/health/live";
      for (const [status, r] of Object.entries(op.responses ?? {})) {
        const headers = Object.keys((r as { headers?: Record<string, unknown> }).headers ?? {});
        const where = `${method} ${path} ${status}`;
        if (probe) expect(headers, where).not.toContain("RateLimit");
        else expect(headers, where).toEqual(expect.arrayContaining(["RateLimit", "RateLimit-Policy"]));
        if (status === "429") expect(headers, where).toContain("Retry-After");
      }
    }
  });

  it("the RateLimit headers it documents are sent, on a success as on an error", async () => {
    const ok = await gw.request("GET", "/api/openapi.json", { ip: freshIp() });
    expect(ok.headers.get("ratelimit-policy")).toMatch(/q=\d+;w=\d+/);
    expect(ok.headers.get("ratelimit")).toMatch(/r=\d+;t=\d+/);
    const unauthenticated = await gw.request("GET", "/api/usage", { ip: freshIp() });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get("ratelimit")).toMatch(/r=\d+;t=\d+/);
  });

  it("gives every webhook entry an explicit security (none: the receiver checks the signature)", () => {
    for (const [type, item] of Object.entries(doc.webhooks ?? {}))
      expect(item.post?.security, type).toEqual([]);
  });

  it("describes CORS as the gateway behaves: no CORS headers, preflight 405, CSRF on cookie writes", async () => {
    const description = (doc.info as { description?: string }).description ?? "";
    expect(description).toMatch(/CORS/);
    expect(description).toMatch(/csrf_rejected/);
    expect(description).toMatch(/RateLimit-Policy/);
    const preflight = await gw.request("OPTIONS", "/api/findings", {
      ip: freshIp(),
      headers: {
        origin: "https://elsewhere.example",
        "access-control-request-method": "GET",
      },
    });
    expect(preflight.status).toBe(405);
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
    const get = await gw.request("GET", "/api/health/live", {
      ip: freshIp(),
      headers: { origin: "https://elsewhere.example" },
    });
    expect(get.headers.get("access-control-allow-origin")).toBeNull();
    expect(get.headers.get("cross-origin-resource-policy")).toBe("same-origin");
  });
});

describe("declared errors", () => {
  it("PATCH /api/incidents/{id} lists 409 invalid_transition", () => {
    const schema = doc.paths["/incidents/{id}"]?.patch?.responses?.["409"]?.content?.["application/json"]
      ?.schema as { allOf: Array<{ properties?: { error?: { enum?: string[] } } }> } | undefined;
    expect(schema?.allOf[1]?.properties?.error?.enum).toContain("invalid_transition");
  });
});
