import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ERROR_STATUS, type TErrorCode, type TMeta } from "@posture/platform";
import { operationErrorCodes } from "../openapi";

/**
 * Every error code a REST procedure can throw is in its OpenAPI responses: the codes its access,
 * input and path imply, plus its `meta.errors`. Read from the source: the procedure file, and the
 * functions it calls in the modules it imports by relative path (services), following calls into
 * other functions of those modules and their relative imports. `new AppError("code", …)` counts, and
 * `notFound(` / `firstOr404(` count as `not_found`.
 */
const root = fileURLToPath(new URL("../../../../", import.meta.url));
const CODES = new Set(Object.keys(ERROR_STATUS));

const sources = new Map<string, string>();
const read = (file: string) => {
  let s = sources.get(file);
  if (s === undefined) sources.set(file, (s = readFileSync(file, "utf8")));
  return s;
};

function moduleFile(from: string, spec: string): string | null {
  const base = resolve(dirname(from), spec);
  for (const f of [`${base}.ts`, join(base, "index.ts")]) if (existsSync(f)) return f;
  return null;
}

/** Relative imports of a module: local name → [file, exported name]. */
function imports(file: string): Map<string, [string, string]> {
  const out = new Map<string, [string, string]>();
  for (const m of read(file).matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+"(\.{1,2}\/[^"]+)"/g)) {
    const target = moduleFile(file, m[2] ?? "");
    if (!target) continue;
    for (const part of (m[1] ?? "").split(",")) {
      const [name, alias] = part
        .replace(/\btype\s+/, "")
        .trim()
        .split(/\s+as\s+/);
      if (name) out.set((alias ?? name).trim(), [target, name.trim()]);
    }
  }
  return out;
}

/** The text of a top-level function (or arrow const) of a module, to its closing brace at column 0. */
function body(file: string, name: string): string | null {
  const src = read(file);
  const start = new RegExp(
    `^(?:export\\s+)?(?:async\\s+)?function\\*?\\s+${name}\\b|^(?:export\\s+)?const\\s+${name}\\b`,
    "m",
  ).exec(src);
  if (!start) return null;
  const end = src.indexOf("\n}", start.index);
  return src.slice(start.index, end < 0 ? undefined : end + 2);
}

function codesIn(text: string): Set<TErrorCode> {
  const out = new Set<TErrorCode>();
  for (const m of text.matchAll(/AppError\(\s*"([a-z_]+)"/g))
    if (CODES.has(m[1] ?? "")) out.add(m[1] as TErrorCode);
  if (/\b(notFound|firstOr404)\(/.test(text)) out.add("not_found");
  return out;
}

/** The codes reachable from a piece of a module: its own, and those of the functions it calls. */
function reachable(file: string, text: string, seen = new Set<string>()): Set<TErrorCode> {
  const out = codesIn(text);
  const imported = imports(file);
  for (const m of text.matchAll(/\b([A-Za-z_$][\w$]*)\s*\(/g)) {
    const local = m[1] ?? "";
    const [target, name] = imported.get(local) ?? [file, local];
    const key = `${target}#${name}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const b = body(target, name);
    if (b) for (const c of reachable(target, b, seen)) out.add(c);
  }
  return out;
}

/**
 * Lookups of the caller's own organization or membership, which the guards resolved a moment
 * earlier: a 404 there would need the organization deleted mid-request, so it is not documented.
 */
const UNDOCUMENTED: Record<string, TErrorCode[]> = {
  "POST /keys": ["not_found"], // the key's owner: the signed-in member itself
  "GET /usage": ["not_found"],
  "POST /compliance/reports": ["not_found"],
  "GET /compliance/dashboard": ["not_found"],
  "GET /compliance/gap-report": ["not_found"],
  "GET /reports/compliance": ["not_found"],
};

type TProcedure = { _def: { meta?: TMeta } };
const isProcedure = (v: unknown): v is TProcedure =>
  typeof v === "function" && Boolean((v as Partial<TProcedure>)._def?.meta?.openapi);

const procedureFiles = readdirSync(join(root, "packages")).flatMap((pkg) => {
  const dir = join(root, "packages", pkg, "src", "procedures");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".types.ts") && !f.endsWith(".test.ts"))
    .map((f) => join(dir, f));
});

describe("declared errors", () => {
  it("finds the procedures and what they throw", async () => {
    expect(procedureFiles.length).toBeGreaterThan(30);
    const update = procedureFiles.find((f) => f.endsWith("incidents/src/procedures/update-incident.ts"));
    expect(update && reachable(update, read(update))).toContain("invalid_transition");
  });

  it("every code a REST procedure can throw is documented for its operation", async () => {
    const missing: string[] = [];
    let checked = 0;
    for (const file of procedureFiles) {
      const mod = (await import(file)) as Record<string, unknown>;
      const procs = Object.values(mod).filter(isProcedure);
      if (procs.length === 0) continue;
      const thrown = reachable(file, read(file));
      for (const p of procs) {
        const meta = p._def.meta as TMeta & { openapi: NonNullable<TMeta["openapi"]> };
        const access = meta.access ?? { auth: "public" as const };
        const method = meta.openapi.method.toLowerCase();
        const documented = new Set([
          ...operationErrorCodes(meta.openapi.path, method, access, meta.errors),
          ...(UNDOCUMENTED[`${meta.openapi.method} ${meta.openapi.path}`] ?? []),
        ]);
        checked += 1;
        for (const code of thrown)
          if (!documented.has(code)) missing.push(`${meta.openapi.method} ${meta.openapi.path}: ${code}`);
      }
    }
    expect(checked).toBeGreaterThan(40);
    expect(missing).toEqual([]);
  });
});
