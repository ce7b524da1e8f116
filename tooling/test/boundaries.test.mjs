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
/**
 * Test doubles: the vendor fakes. They use infrastructure (the connectors' wire formats, platform's
 * fake HTTP server); any layer's tests may use them, no product source may (see "test doubles").
 */
const TEST_ONLY = ["fakes"];

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

/** A test, or code only tests run: `*.test.ts`, `*.int.test.ts`, and what is under `testing/` or `tests/`. */
const isTestSource = (file) => /\.test\.(ts|mjs)$/.test(file) || /\/(testing|tests)\//.test(file);

/**
 * The @posture packages a package uses: [name, where, testOnly] triples (its manifest, or a source
 * file); testOnly when the manifest declares it a devDependency or only a test source imports it.
 */
function usesOf(pkg) {
  const dir = join(root, "packages", pkg);
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const declared = [
    ...Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies }).map((d) => [d, false]),
    ...Object.keys({ ...manifest.devDependencies }).map((d) => [d, true]),
  ].flatMap(([d, dev]) => (d.startsWith("@posture/") ? [[d.slice(9), "package.json", dev]] : []));
  const imported = sourcesOf(join(dir, "src")).flatMap((file) =>
    [
      ...readFileSync(file, "utf8").matchAll(
        /(?:from\s+|import\s+|import\(\s*|require\(\s*)["']@posture\/([a-z0-9-]+)/g,
      ),
    ].map((m) => [m[1], file.slice(root.length), isTestSource(file)]),
  );
  return [...declared, ...imported].filter(([name]) => name !== pkg && !TOOLING.has(name));
}

/** Every use of a package outside `allowed`, as "pkg → used (where)"; tests may use the fakes. */
function violations(layer, allowed) {
  return layer.flatMap((pkg) =>
    usesOf(pkg)
      .filter(([name, , testOnly]) => !allowed.has(name) && !(testOnly && TEST_ONLY.includes(name)))
      .map(([name, where]) => `${pkg} → ${name} (${where})`),
  );
}

/**
 * Every import of the fakes from a source that is not a test, in apps/* and packages/* (the fakes
 * themselves and the benchmark app excepted): by package name, or by a relative path into
 * packages/fakes as the connectors' own tests use, since a workspace dependency back would be a cycle.
 */
function productImportsOfFakes() {
  const trees = ["apps", "packages"].flatMap((top) =>
    readdirSync(join(root, top))
      .filter((d) => !(top === "packages" && d === "fakes") && !(top === "apps" && d === "bench"))
      .map((d) => join(root, top, d, "src"))
      .filter((dir) => statSync(dir, { throwIfNoEntry: false })?.isDirectory()),
  );
  return trees.flatMap((dir) =>
    sourcesOf(dir)
      .filter((file) => !isTestSource(file))
      .flatMap((file) =>
        [
          ...readFileSync(file, "utf8").matchAll(
            /(?:from\s+|import\s+|import\(\s*|require\(\s*)["'](@posture\/fakes[^"']*|(?:\.\.?\/)+(?:packages\/)?fakes\/[^"']*)/g,
          ),
        ].map((m) => `${file.slice(root.length)} → ${m[1]}`),
      ),
  );
}

/** Where a manifest in apps/* or packages/* declares @posture/fakes as a run-time dependency. */
function runtimeDependentsOfFakes() {
  return ["apps", "packages"].flatMap((top) =>
    readdirSync(join(root, top)).flatMap((d) => {
      const path = join(root, top, d, "package.json");
      if (!statSync(path, { throwIfNoEntry: false })?.isFile()) return [];
      const manifest = JSON.parse(readFileSync(path, "utf8"));
      const runtime = { ...manifest.dependencies, ...manifest.peerDependencies };
      return "@posture/fakes" in runtime && `${top}/${d}` !== "apps/bench" ? [`${top}/${d}`] : [];
    }),
  );
}

describe("package layers", () => {
  it("puts every package in exactly one layer", () => {
    const layers = [...INFRASTRUCTURE, ...DOMAIN, ...ORCHESTRATING, ...HANDED_OUT, ...TEST_ONLY, ...TOOLING];
    expect(new Set(layers).size).toBe(layers.length);
    expect(packages.filter((p) => !layers.includes(p))).toEqual([]);
  });

  it("keeps infrastructure to infrastructure", () => {
    expect(violations(INFRASTRUCTURE, new Set(INFRASTRUCTURE))).toEqual([]);
  });

  it("lets a domain package use infrastructure only, never another domain package", () => {
    expect(violations(DOMAIN, new Set(INFRASTRUCTURE))).toEqual([]);
  });

  it("keeps the test doubles to infrastructure", () => {
    expect(violations(TEST_ONLY, new Set(INFRASTRUCTURE))).toEqual([]);
  });
});

describe("test doubles", () => {
  it("lets no product source import the fakes (only tests and the benchmark app)", () => {
    expect(productImportsOfFakes()).toEqual([]);
    expect(runtimeDependentsOfFakes()).toEqual([]);
  });

  it.each(["connectors", "ticketing"])("exports no test double from @posture/%s", (pkg) => {
    const manifest = JSON.parse(readFileSync(join(root, `packages/${pkg}/package.json`), "utf8"));
    const exported = Object.entries(manifest.exports ?? {});
    expect(exported.filter(([key, target]) => /testing|fake/.test(`${key} ${target}`))).toEqual([]);
    expect(statSync(join(root, `packages/${pkg}/src/testing`), { throwIfNoEntry: false })).toBeUndefined();
  });
});
