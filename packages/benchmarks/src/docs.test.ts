import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { renderTenantChecksDoc } from "./docs";
import { generateTenantChecksDoc, TENANT_CHECKS_DOC } from "./docs-file";
import type { TTenantCheck } from "./types";

describe("docs/tenant-checks.md", () => {
  it("is what the catalogs generate (regenerate: pnpm --filter @posture/benchmarks docs)", async () => {
    expect(await readFile(TENANT_CHECKS_DOC, "utf8")).toBe(await generateTenantChecksDoc());
  });

  it("lists each check's id, benchmark id, title, severity, settings, expected, fix and controls", () => {
    const check: TTenantCheck = {
      id: "m365_legacy_auth",
      source: "microsoft_365",
      benchmark: { name: "CIS Microsoft 365 Foundations", version: "4.0.0", id: "5.2.2.3" },
      title: "Legacy authentication is blocked",
      severity: "HIGH",
      settings: ["ca.legacyAuthBlocked"],
      expected: "a conditional access policy blocks legacy clients",
      test: (v) => v["ca.legacyAuthBlocked"] === true,
      fix: "Entra admin center > Conditional Access > block legacy authentication",
      controls: { soc2: ["CC6.1"], iso27001: ["A.8.5"], gdpr: ["Art.32"], hipaa: [], nist_csf: ["PR.AA-03"] },
    };
    const doc = renderTenantChecksDoc({ google: [], microsoft: [check] });
    expect(doc).toContain("### `m365_legacy_auth`: Legacy authentication is blocked");
    expect(doc).toContain("- Benchmark: CIS Microsoft 365 Foundations 4.0.0, recommendation 5.2.2.3");
    expect(doc).toContain("- Severity: HIGH");
    expect(doc).toContain("- Setting: `ca.legacyAuthBlocked`");
    expect(doc).toContain("- Expected: a conditional access policy blocks legacy clients");
    expect(doc).toContain("- Fix: Entra admin center > Conditional Access > block legacy authentication");
    expect(doc).toContain(
      "- Controls: SOC 2 CC6.1; ISO 27001 A.8.5; GDPR Art.32; HIPAA none; NIST CSF PR.AA-03",
    );
    expect(doc).toContain("## Google Workspace\n\nNo checks yet.");
  });
});
