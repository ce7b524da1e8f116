import { describe, expect, it } from "vitest";
import { routeCatalog } from "@posture/platform";
import { appRouter } from "./router";

/**
 * The one naming scheme of tRPC procedure keys (docs/architecture.md, "Procedure keys"): the key
 * mirrors the REST path, so either can be guessed from the other. The path's literal segments after
 * `/api`, camelCased, then a verb from the method: GET → `list` (a collection) or `get` (one thing),
 * POST → `create`, PATCH → `update`, PUT → `set`, DELETE → `delete`. When the last literal segment
 * is itself an action (`/connectors/{id}/sync`), it is the verb.
 */
const ACTION_SEGMENTS: ReadonlySet<string> = new Set([
  "signIn",
  "signOut",
  "sync",
  "redeliver",
  "generate",
  "export",
  "verify",
  "approve",
  "apply",
  "cancel",
  "undo",
  "simulate",
  "test",
  "rotateSecret",
  "reset",
]);

/** tRPC reserves these as router keys (a router is callable): the action is keyed `<word>Plan`. */
const TRPC_RESERVED: Readonly<Record<string, string>> = {
  apply: "applyPlan",
  call: "callPlan",
  then: "thenPlan",
};

const VERBS: Record<string, readonly string[]> = {
  GET: ["list", "get"],
  POST: ["create"],
  PATCH: ["update"],
  PUT: ["set"],
  DELETE: ["delete"],
};

const camel = (segment: string) => segment.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** The keys a procedure at `method path` may have (a GET of a literal path: `list` or `get`). */
function expectedKeys(method: string, path: string): string[] {
  const segments = path.split("/").filter(Boolean);
  const nouns = segments.filter((s) => !s.startsWith("{")).map(camel);
  const last = nouns.at(-1);
  if (last !== undefined && ACTION_SEGMENTS.has(last))
    return [[...nouns.slice(0, -1), TRPC_RESERVED[last] ?? last].join(".")];
  const endsWithId = segments.at(-1)?.startsWith("{") ?? false;
  const verbs = method === "GET" && endsWithId ? ["get"] : (VERBS[method] ?? []);
  return verbs.map((verb) => [...nouns, verb].join("."));
}

const catalog = routeCatalog(appRouter);

describe("procedure keys: area.noun.verb, mirroring the REST path", () => {
  it("derives keys from paths", () => {
    expect(expectedKeys("GET", "/findings")).toEqual(["findings.list", "findings.get"]);
    expect(expectedKeys("GET", "/findings/{id}")).toEqual(["findings.get"]);
    expect(expectedKeys("POST", "/findings/{id}/ticket")).toEqual(["findings.ticket.create"]);
    expect(expectedKeys("POST", "/connectors/{id}/sync")).toEqual(["connectors.sync"]);
    expect(expectedKeys("DELETE", "/sharing/trusted-domains/{id}")).toEqual([
      "sharing.trustedDomains.delete",
    ]);
    expect(expectedKeys("PUT", "/integrations/ticketing")).toEqual(["integrations.ticketing.set"]);
    expect(expectedKeys("GET", "/incidents/{id}/export")).toEqual(["incidents.export"]);
    expect(ACTION_SEGMENTS.has("signIn")).toBe(true);
  });

  it("every procedure of the router has an OpenAPI path", () => {
    const withoutPath = catalog.entries.filter((e) => !e.rest).map((e) => e.key);
    expect(withoutPath).toEqual([]);
  });

  it("every key is the one its REST path and method give", () => {
    const wrong = catalog.rest.flatMap(({ key, rest: o }) => {
      const allowed = expectedKeys(o.method, o.path);
      return allowed.includes(key)
        ? []
        : [`${o.method} ${o.path}: ${key} (expected ${allowed.join(" or ")})`];
    });
    expect(wrong).toEqual([]);
  });
});
