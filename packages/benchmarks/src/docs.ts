import { COMPLIANCE_FRAMEWORKS } from "@posture/db";
import type { TTenantCheck } from "./types";

const FRAMEWORK_NAMES: Record<(typeof COMPLIANCE_FRAMEWORKS)[number], string> = {
  soc2: "SOC 2",
  iso27001: "ISO 27001",
  gdpr: "GDPR",
  hipaa: "HIPAA",
  nist_csf: "NIST CSF",
};

const code = (s: string) => "`" + s.replace(/`/g, "'") + "`";

function section(heading: string, checks: readonly TTenantCheck[]): string[] {
  const benchmarks = [...new Set(checks.map((c) => `${c.benchmark.name} ${c.benchmark.version}`))];
  const out = [`## ${heading}`, ""];
  out.push(
    checks.length === 0 ? "No checks yet." : `${checks.length} checks, against ${benchmarks.join(", ")}.`,
    "",
  );
  for (const c of checks) {
    out.push(`### ${code(c.id)}: ${c.title}`, "");
    out.push(`- Benchmark: ${c.benchmark.name} ${c.benchmark.version}, recommendation ${c.benchmark.id}`);
    out.push(`- Severity: ${c.severity}`);
    out.push(`- Setting${c.settings.length > 1 ? "s" : ""}: ${c.settings.map(code).join(", ")}`);
    out.push(`- Expected: ${c.expected}`);
    out.push(`- Fix: ${c.fix}`);
    out.push(
      `- Controls: ${COMPLIANCE_FRAMEWORKS.map((f) => `${FRAMEWORK_NAMES[f]} ${c.controls[f].join(", ") || "none"}`).join("; ")}`,
    );
    out.push("");
  }
  return out;
}

/**
 * docs/tenant-checks.md, from the catalogs (unformatted: the script and its test run it through
 * prettier, as the repository's format check would).
 */
export function renderTenantChecksDoc(catalogs: {
  google: readonly TTenantCheck[];
  microsoft: readonly TTenantCheck[];
  github?: readonly TTenantCheck[];
}): string {
  return [
    "# Tenant configuration checks",
    "",
    "<!-- Generated from packages/benchmarks by `pnpm --filter @posture/benchmarks docs`; do not edit. -->",
    "",
    "Each check reads tenant settings through the documented APIs (see `google/settings/catalog.ts`,",
    "`microsoft/settings/catalog.ts` and `github/adapter.ts` in `packages/connectors`), is evaluated on every scan, and when it fails opens",
    "a `tenant_configuration` finding whose rule id is the check id and which carries the benchmark's",
    "recommendation id. A check whose settings cannot be read (a missing scope, permission or licence)",
    "is unavailable: no finding, and the scan's coverage says what was missing. Each result is the",
    "evidence of the compliance controls listed.",
    "",
    ...section("Google Workspace", catalogs.google),
    ...section("Microsoft 365", catalogs.microsoft),
    ...(catalogs.github ? section("GitHub", catalogs.github) : []),
  ].join("\n");
}
