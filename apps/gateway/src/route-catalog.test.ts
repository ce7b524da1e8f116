import type { Request } from "express";
import { describe, expect, it } from "vitest";
import { READ_AREAS, WRITE_TOOLS, type TOpenApiDocument } from "@posture/mcp";
import { routeCatalog, type TRestEntry } from "@posture/platform";
import type { TGatewayDeps } from "./deps";
import { downloadRoutes } from "./downloads";
import { gatewayCatalog } from "./mcp";
import { buildOpenApiDocument } from "./openapi";
import { compileGetRoutes, compileRouteInputs } from "./rest-dispatch";
import { appRouter } from "./router";
import { compileRoutes } from "./routes";

// Issue 29: the router's procedures are read once, into the route catalog, and every transport
// and walker takes its routes from there. This file checks the catalog against the router's own
// procedure tree (read independently, through `_def.record`) and then each consumer against the
// catalog, entry by entry: a procedure missing from any of them fails here with its key.

const catalog = routeCatalog(appRouter);

type TNode = { _def?: { procedure?: boolean; record?: Record<string, TNode> } } & Record<string, unknown>;

/** The procedures of the router's nested record, by dotted key, as tRPC resolves `/trpc/<key>`. */
function recordProcedures(record: Record<string, unknown>, prefix = ""): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [name, node] of Object.entries(record)) {
    const key = prefix ? `${prefix}.${name}` : name;
    const n = node as TNode;
    if (n._def?.procedure) out.set(key, node);
    else if (n._def?.record) for (const [k, v] of recordProcedures(n._def.record, key)) out.set(k, v);
    else for (const [k, v] of recordProcedures(n, key)) out.set(k, v);
  }
  return out;
}

/** A concrete path for a route: each parameter a fixed sample id. */
const concrete = (e: TRestEntry) => e.rest.path.replace(/\{[^}]+\}/g, "catalog-sample-id");

const label = compileRoutes(appRouter);
const labelOf = (method: string, originalUrl: string) => label({ method, originalUrl } as Request);

describe("the route catalog", () => {
  it("holds exactly the procedures tRPC serves, each the same object", () => {
    const tree = recordProcedures((appRouter._def as unknown as { record: Record<string, unknown> }).record);
    expect([...catalog.byKey.keys()].sort()).toEqual([...tree.keys()].sort());
    const different = catalog.entries.filter((e) => tree.get(e.key) !== e.procedure).map((e) => e.key);
    expect(different).toEqual([]);
    // Every procedure is also a REST operation (procedure-keys.test.ts checks the keys' shape).
    expect(catalog.rest.length).toBe(catalog.entries.length);
    expect(catalog.entries.length).toBeGreaterThan(100);
  });

  it("finds each REST operation by its method and declared path, and no other", () => {
    const wrong = catalog.rest.filter((e) => catalog.at(e.rest.method, e.rest.path) !== e).map((e) => e.key);
    expect(wrong).toEqual([]);
    expect(catalog.at("GET", "/no-such-path")).toBeUndefined();
    expect(catalog.literalMethods("/compliance/evidence/generate")).toEqual(new Set(["POST"]));
  });
});

describe("every consumer has every route of the catalog", () => {
  it("OpenAPI: an operation per REST entry, with its access, and no operation without an entry", () => {
    const doc = buildOpenApiDocument("http://localhost:3000") as unknown as {
      paths: Record<string, Record<string, { operationId?: string; "x-access"?: unknown }>>;
    };
    const missing = catalog.rest.flatMap((e) => {
      const op = doc.paths[e.rest.path]?.[e.rest.method.toLowerCase()];
      return op && op.operationId === e.key.replace(/\./g, "-") && op["x-access"] !== undefined
        ? []
        : [e.key];
    });
    expect(missing).toEqual([]);
    // The gateway's own Express routes are the only operations no procedure declares.
    const extra = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((m) => !catalog.at(m.toUpperCase(), path))
        .map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(extra.sort()).toEqual([
      "GET /docs",
      "GET /openapi.json",
      "POST /integrations/ticketing/events/{hookId}",
    ]);
  });

  it("REST: each operation's input checks and, for a JSON GET, the precompiled dispatch", () => {
    const inputs = compileRouteInputs(appRouter);
    const unrouted = catalog.rest.filter((e) => !inputs(e.rest.method, concrete(e))).map((e) => e.key);
    expect(unrouted).toEqual([]);
    const gets = compileGetRoutes(appRouter);
    expect(gets).not.toBeNull();
    // Every JSON GET of the catalog is reached by the precompiled dispatch, as itself (a download
    // is answered by its own route, mounted before: GET /findings/export is not finding "export").
    const slow = catalog.rest
      .filter((e) => e.rest.method === "GET" && e.kind === "query" && !e.download)
      .filter((e) => gets?.match(concrete(e))?.route.name !== e.key)
      .map((e) => e.key);
    expect(slow).toEqual([]);
  });

  it("downloads: an Express route for each download entry, and for no other", () => {
    const router = downloadRoutes({} as TGatewayDeps) as unknown as {
      stack: Array<{ route?: { path: string; methods: Record<string, boolean> } }>;
    };
    const mounted = router.stack
      .flatMap((l) =>
        l.route ? Object.keys(l.route.methods).map((m) => `${m.toUpperCase()} ${l.route?.path}`) : [],
      )
      .sort();
    const expected = catalog.rest
      .filter((e) => e.download)
      .map((e) => `${e.rest.method} ${e.rest.path.replace(/\{([^}]+)\}/g, ":$1")}`)
      .sort();
    expect(mounted).toEqual(expected);
    expect(expected.length).toBeGreaterThanOrEqual(5);
  });

  it("metrics: a label per REST operation and per tRPC key", () => {
    const unlabelled = catalog.rest.flatMap((e) => {
      // A sample id under a literal path of another route takes that route's label: checked with
      // the literal routes themselves.
      const got = labelOf(e.rest.method, `/api${concrete(e)}?x=1`);
      return got === e.rest.template || (!e.rest.literal && got !== "unmatched") ? [] : [`${e.key}: ${got}`];
    });
    expect(unlabelled).toEqual([]);
    expect(catalog.entries.filter((e) => labelOf("POST", `/trpc/${e.key}`) === "unmatched")).toEqual([]);
    expect(labelOf("GET", "/api/no-such-route")).toBe("unmatched");
    expect(labelOf("GET", "/api/FINDINGS")).toBe("GET /api/findings");
  });

  it("MCP: every tool and resource is a catalog entry of its kind, and every entry its rules admit is one", () => {
    const doc = buildOpenApiDocument("http://localhost:3000") as unknown as TOpenApiDocument;
    const mcp = gatewayCatalog(doc);
    const served = new Map([...mcp.tools, ...mcp.resources].map((t) => [t.op.key, t.op]));
    const stale = [...served].filter(([key, op]) => {
      const e = catalog.byKey.get(key);
      return !e?.rest || e.rest.method !== op.method || e.rest.path !== op.path;
    });
    expect(stale).toEqual([]);
    // The catalog's rules (apps/mcp/src/catalog.ts): reads of the read areas with an API key, and
    // the named write tools.
    const admitted = catalog.rest.filter((e) => {
      const area = e.rest.path.split("/")[1] ?? "";
      const write = WRITE_TOOLS.has(`${e.rest.method} ${e.rest.path}`);
      const keyAuth = e.access?.auth === "apiKey" || e.access?.auth === "partner";
      if (!keyAuth) return false;
      if (write) return true;
      return e.rest.method === "GET" && e.kind === "query" && READ_AREAS.has(area);
    });
    expect(admitted.filter((e) => !served.has(e.key)).map((e) => e.key)).toEqual([]);
    expect(served.size).toBe(admitted.length);
  });
});
