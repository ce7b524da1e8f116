import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { routeCatalog } from "@posture/platform";
import { appRouter } from "./router";

// One file-name scheme for procedures (issue 29), the account package's: `procedures/<verb>-<nouns>.ts`
// (`create-key.ts` defines `keys.create`), named from the key it defines. The verb is the key's
// last segment (`applyPlan` → apply-plan; its words may be split by a noun: rotate-webhook-secret
// for `webhooks.rotateSecret`); every other word is one of the key's nouns, singular or plural
// (`get-finding.ts` for `findings.get`), and a one-word verb needs at least one (not `get.ts`). A file of several procedures is named by the nouns they
// share (`exposure-settings.ts`: `exposure.settings.get` and `.update`). A procedure's file is the
// one that exports it, or (a procedure a router's builder makes) that exports or imports from a
// `.types.ts` module the `openapi` meta object the catalog's entry holds.

const PACKAGES = fileURLToPath(new URL("../../../packages", import.meta.url));
/** Files under procedures/ that define no one procedure: factories and helpers of several. */
const NOT_ONE_PROCEDURE = ["partner/client-read.ts", "posture/rules.ts", "remediation/scope.ts"];

const words = (s: string) =>
  s
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .toLowerCase()
    .split("-")
    .filter(Boolean);
const singular = (w: string) => (w.endsWith("ies") ? `${w.slice(0, -3)}y` : w.replace(/s$/, ""));

/** What is wrong with a file's name for the keys it defines, or null. */
export function misnamed(file: string, keys: string[]): string | null {
  const name = words(file.replace(/\.ts$/, ""));
  const nounsOf = (key: string) => new Set(key.split(".").slice(0, -1).flatMap(words).map(singular));
  if (keys.length > 1) {
    const stray = name.filter((w) => !keys.every((k) => nounsOf(k).has(singular(w))));
    return stray.length === 0 ? null : `words not shared by every key: ${stray.join(", ")}`;
  }
  const key = keys[0] ?? "";
  const verb = words(key.split(".").at(-1) ?? "");
  const nouns = nounsOf(key);
  if (name[0] !== verb[0]) return `starts with "${name[0]}", not the verb "${verb[0]}"`;
  const missing = verb.filter((w) => !name.includes(w));
  if (missing.length > 0) return `lacks the verb's ${missing.join(", ")}`;
  const stray = name.filter((w) => !verb.includes(w) && !nouns.has(singular(w)));
  if (stray.length > 0) return `words not in the key: ${stray.join(", ")}`;
  // A bare verb says nothing of what it acts on (`get.ts`), unless the verb is a phrase (sign-in).
  return name.length > verb.length || verb.length > 1 ? null : "names no noun";
}

async function procedureFiles(): Promise<Array<{ file: string; keys: string[] }>> {
  const { entries } = routeCatalog(appRouter);
  const byValue = new Map<unknown, string>([
    ...entries.map((e) => [e.procedure, e.key] as const),
    ...entries.map((e) => [e.meta?.openapi, e.key] as const),
  ]);
  const out: Array<{ file: string; keys: string[] }> = [];
  for (const pkg of readdirSync(PACKAGES)) {
    let files: string[];
    try {
      files = readdirSync(join(PACKAGES, pkg, "src", "procedures"));
    } catch {
      continue;
    }
    for (const file of files.filter((f) => /^[a-z0-9-]+\.ts$/.test(f))) {
      const dir = join(PACKAGES, pkg, "src", "procedures");
      const keys = new Set<string>();
      const note = (value: unknown) => {
        const key = byValue.get(value) ?? byValue.get((value as { openapi?: unknown } | null)?.openapi);
        if (key) keys.add(key);
      };
      for (const value of Object.values((await import(join(dir, file))) as Record<string, unknown>))
        note(value);
      // The metas it takes from a `.types.ts` module (a builder's procedure is not exported).
      const source = readFileSync(join(dir, file), "utf8");
      for (const [, names = "", from = ""] of source.matchAll(
        /import \{([^}]*)\} from "\.\/([^"]+\.types)"/g,
      )) {
        const mod = (await import(join(dir, `${from}.ts`))) as Record<string, unknown>;
        for (const name of names.split(",").map((n) => n.trim().replace(/^type /, "")))
          if (name) note(mod[name]);
      }
      out.push({ file: `${pkg}/${file}`, keys: [...keys].sort() });
    }
  }
  return out;
}

describe("procedure file names", () => {
  it("applies the rule", () => {
    expect(misnamed("create-key.ts", ["keys.create"])).toBeNull();
    expect(misnamed("get-finding.ts", ["findings.get"])).toBeNull();
    expect(misnamed("rotate-webhook-secret.ts", ["webhooks.rotateSecret"])).toBeNull();
    expect(
      misnamed("exposure-settings.ts", ["exposure.settings.get", "exposure.settings.update"]),
    ).toBeNull();
    expect(misnamed("revoke-key.ts", ["keys.delete"])).toMatch(/not the verb "delete"/);
    expect(misnamed("action-create.ts", ["partner.actions.create"])).toMatch(/not the verb/);
    expect(misnamed("get-my-score.ts", ["awareness.me.get"])).toMatch(/not in the key: my, score/);
    expect(misnamed("get.ts", ["remediations.get"])).toBe("names no noun");
    expect(misnamed("sign-in.ts", ["auth.signIn"])).toBeNull();
  });

  it("follow the key each file defines, in every package", { timeout: 60_000 }, async () => {
    const files = await procedureFiles();
    const unmapped = files.filter((f) => f.keys.length === 0).map((f) => f.file);
    expect(unmapped).toEqual(NOT_ONE_PROCEDURE);
    const wrong = files.flatMap(({ file, keys }) => {
      if (keys.length === 0) return [];
      const problem = misnamed(file.split("/")[1] ?? "", keys);
      return problem ? [`${file} (${keys.join(", ")}): ${problem}`] : [];
    });
    expect(wrong).toEqual([]);
    expect(files.length).toBeGreaterThan(100);
  });
});
