import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

// docs/architecture.md: a domain package depends only on platform, db and infrastructure packages,
// never on another domain package; orchestrating packages may import domain packages, and no
// domain or infrastructure package imports them. Checked on every package's manifest and on every
// `@posture/…` import in its sources (tests included), so a subpath import (`@posture/x/sub`) or an
// undeclared one fails as a declared one does. Every package must be in exactly one layer.

const root = new URL("../../", import.meta.url).pathname;

/**
 * What every other layer may use. connectors, webhooks and ticketing are areas with routes of their
 * own, but they are used as infrastructure: the source adapters (the scan, the store, the
 * benchmarks read them), the transactional outbox every area's events go through, and the
 * trackers' clients the findings' tickets call.
 */
const INFRASTRUCTURE = ["db", "platform", "jobs", "pdf", "benchmarks", "connectors", "webhooks", "ticketing"];
const DOMAIN = [
  "account",
  "agent-guard",
  "awareness",
  "compliance",
  "exposure",
  "flow-guard",
  "incidents",
  "partner",
  "posture",
  "ueba",
  "workspace",
];
/** They compose domain packages (the scan pipeline, plans applied at the source, the demo). */
const ORCHESTRATING = ["composition", "demo", "remediation", "sandbox", "scans"];
/** What users are handed: the SDK (its own test keeps it free of @posture), the tRPC client, the docs bundle. */
const HANDED_OUT = ["api-reference", "client", "sdk"];
/** Build and lint configuration, not code. */
const TOOLING = new Set(["tsconfig", "eslint-config", "build"]);

const packages = readdirSync(join(root, "packages")).filter((d) =>
  statSync(join(root, "packages", d, "package.json"), { throwIfNoEntry: false })?.isFile(),
);

function sourcesOf(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === "node_modules" ? [] : sourcesOf(path);
    return /\.(ts|tsx|mts|js|mjs)$/.test(e.name) ? [path] : [];
  });
}

/** The @posture packages a package uses: [name, where] pairs (its manifest, or a source file). */
function usesOf(pkg) {
  const dir = join(root, "packages", pkg);
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const declared = Object.keys({
    ...manifest.dependencies,
    ...manifest.devDependencies,
    ...manifest.peerDependencies,
  }).flatMap((d) => (d.startsWith("@posture/") ? [[d.slice(9), "package.json"]] : []));
  const imported = sourcesOf(join(dir, "src")).flatMap((file) =>
    [
      ...readFileSync(file, "utf8").matchAll(
        /(?:from\s+|import\(\s*|require\(\s*)["']@posture\/([a-z0-9-]+)/g,
      ),
    ].map((m) => [m[1], file.slice(root.length)]),
  );
  return [...declared, ...imported].filter(([name]) => name !== pkg && !TOOLING.has(name));
}

/** Every use of a package outside `allowed`, as "pkg → used (where)". */
function violations(layer, allowed) {
  return layer.flatMap((pkg) =>
    usesOf(pkg)
      .filter(([name]) => !allowed.has(name))
      .map(([name, where]) => `${pkg} → ${name} (${where})`),
  );
}

describe("package layers", () => {
  it("puts every package in exactly one layer", () => {
    const layers = [...INFRASTRUCTURE, ...DOMAIN, ...ORCHESTRATING, ...HANDED_OUT, ...TOOLING];
    expect(new Set(layers).size).toBe(layers.length);
    expect(packages.filter((p) => !layers.includes(p))).toEqual([]);
  });

  it("keeps infrastructure to infrastructure", () => {
    expect(violations(INFRASTRUCTURE, new Set(INFRASTRUCTURE))).toEqual([]);
  });

  it("lets a domain package use infrastructure only, never another domain package", () => {
    expect(violations(DOMAIN, new Set(INFRASTRUCTURE))).toEqual([]);
  });
});
