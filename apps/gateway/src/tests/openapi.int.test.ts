import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TMeta } from "@posture/platform";
import { appRouter } from "../router";
import { startTestGateway, type TTestGateway } from "../testing";
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
  components: { schemas?: Record<string, unknown>; securitySchemes?: Record<string, unknown> };
};

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
const procedures = Object.values(
  appRouter._def.procedures as unknown as Record<string, { _def: { meta?: TMeta } }>,
)
  .map((p) => p._def.meta)
  .filter((m): m is TMeta & { openapi: NonNullable<TMeta["openapi"]> } => Boolean(m?.openapi));

let gw: TTestGateway;
let doc: TDoc;
let html: string;
beforeAll(async () => {
  gw = await startTestGateway();
  const res = await gw.request("GET", "/api/openapi.json", { ip: freshIp() });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  doc = res.body as TDoc;
  const page = await gw.request("GET", "/api/docs", { ip: freshIp() });
  expect(page.status).toBe(200);
  expect(page.headers.get("content-type")).toMatch(/^text\/html/);
  html = page.text;
});
afterAll(async () => {
  await gw?.close();
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
    expect(operations()).toHaveLength(procedures.length);
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
      for (const s of statuses.filter((x) => !x.startsWith("2"))) {
        expect(op.responses?.[s]?.content?.["application/json"]?.schema).toEqual({
          $ref: "#/components/schemas/Error",
        });
      }
      expect(statuses).toContain("500");
    }
    expect(Object.keys(doc.components.schemas ?? {}).filter((n) => n.startsWith("error."))).toEqual([]);
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
      const statuses = Object.keys(op.responses ?? {});
      if (access.auth !== "public") expect(statuses).toContain("401");
      if (access.plan || access.feature) expect(statuses).toContain("402");
      if (access.role || access.auth === "session" || access.auth === "partner")
        expect(statuses).toContain("403");
      if (meta.openapi.path !== "/health") expect(statuses).toContain("429");
      const successStatus = (meta as { successStatus?: number }).successStatus;
      if (successStatus !== undefined) expect(statuses).toContain(String(successStatus));
    }
  });
});

describe("GET /api/docs", () => {
  it("is a self-contained page: no external scripts, styles or fonts", () => {
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/(src|href)="https?:\/\//i);
  });

  it("shows every operation with its method, /api path, summary and access", () => {
    for (const meta of procedures) {
      const { method, path, summary } = meta.openapi;
      const escapedPath = `/api${path}`.replace(/&/g, "&amp;");
      expect(html).toContain(
        `<span class="m ${method.toLowerCase()}">${method}</span> <code>${escapedPath}</code>`,
      );
      if (summary) expect(html).toContain(summary.replace(/&/g, "&amp;").replace(/'/g, "&#39;"));
    }
    expect(html).toContain("<b>Auth</b> Session only");
  });

  it("renders parameters and request and response schemas compactly", () => {
    // POST /api/keys: `name` is required (1 to 80 characters), expiresInDays optional.
    expect(html).toMatch(/name: string \(1\.\.80\)/);
    expect(html).toMatch(/expiresInDays\?: integer/);
    expect(html).toContain("<h4>Parameters</h4>");
    expect(html).toContain("<code>Idempotency-Key</code>");
    expect(html).toContain("<code>plan_upgrade_required</code>");
  });
});
