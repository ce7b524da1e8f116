import type { TTenantCheck } from "./types";

/** One real control per framework, for checks written in tests. */
export const TEST_CONTROLS: TTenantCheck["controls"] = {
  soc2: ["CC6.1"],
  iso27001: ["A.5.17"],
  gdpr: ["Art. 32"],
  hipaa: ["164.312(d)"],
  nist_csf: ["PR.AA-03"],
};

/**
 * A check for tests (the catalogs' own checks are tested against the fakes): a Google Workspace
 * check of `settings` with everything else defaulted; pass what the test is about.
 */
export function testCheck(
  fields: Pick<TTenantCheck, "id" | "settings" | "test"> & Partial<TTenantCheck>,
): TTenantCheck {
  return {
    source: "google_workspace",
    benchmark: { name: "CIS Google Workspace Foundations", version: "1.3.0", id: "1.1.1" },
    title: `${fields.id} holds`,
    severity: "HIGH",
    expected: "true",
    fix: "Turn it on",
    controls: TEST_CONTROLS,
    ...fields,
  };
}
