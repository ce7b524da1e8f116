import type { TSettingValue } from "@posture/connectors";
import type { TCheckControls, TTenantCheck } from "./types";

/**
 * CIS Software Supply Chain Security Guide v1.0.0 recommendations (section 1, Source Code; the
 * guide the CIS GitHub Benchmark was derived from, with the same ids) that GitHub's REST API
 * exposes on `GET /orgs/{org}`, over the settings of `connectors/src/github/adapter.ts`
 * (`org.*`). The guide marks them Manual; here the audit step it describes is read from the
 * organization's settings. Recommendations the API does not expose (verified badge, SSH
 * certificates, IP allow lists on plans without them) are left out rather than guessed.
 */
const CIS = (id: string) => ({ name: "CIS Software Supply Chain Security Guide", version: "1.0.0", id });

type TValues = Readonly<Record<string, TSettingValue>>;

const BASE: TCheckControls = {
  soc2: ["CC7.1"],
  iso27001: ["A.5.23"],
  gdpr: ["Art. 24"],
  hipaa: ["164.308(a)(8)"],
  nist_csf: ["PR.PS-01"],
};
const merge = (extra: TCheckControls): TCheckControls => ({
  soc2: [...BASE.soc2, ...extra.soc2],
  iso27001: [...BASE.iso27001, ...extra.iso27001],
  gdpr: [...BASE.gdpr, ...extra.gdpr],
  hipaa: [...BASE.hipaa, ...extra.hipaa],
  nist_csf: [...BASE.nist_csf, ...extra.nist_csf],
});

const check = ({
  cis,
  ...rest
}: Omit<TTenantCheck, "source" | "benchmark"> & { cis: string }): TTenantCheck => ({
  ...rest,
  source: "github",
  benchmark: CIS(cis),
});

export const GITHUB_CHECKS: readonly TTenantCheck[] = [
  check({
    id: "gh_org_2fa_required",
    cis: "1.3.5",
    title: "The organization requires its members to use two-factor authentication",
    severity: "HIGH",
    settings: ["org.two_factor_requirement_enabled"],
    expected: "two_factor_requirement_enabled is true",
    test: (v: TValues) => v["org.two_factor_requirement_enabled"] === true,
    fix: "Organization settings › Authentication security › Require two-factor authentication for everyone in the organization",
    controls: merge({
      soc2: ["CC6.1", "CC6.6"],
      iso27001: ["A.5.17", "A.8.5"],
      gdpr: ["Art. 32"],
      hipaa: ["164.312(d)"],
      nist_csf: ["PR.AA-03"],
    }),
  }),
  check({
    id: "gh_base_permission_strict",
    cis: "1.3.8",
    title: "Members' base permission on the organization's repositories is read or none",
    severity: "HIGH",
    settings: ["org.default_repository_permission"],
    expected: "default_repository_permission is read or none",
    test: (v: TValues) =>
      v["org.default_repository_permission"] === "read" || v["org.default_repository_permission"] === "none",
    fix: "Organization settings › Member privileges › Base permissions: Read (or No permission)",
    controls: merge({
      soc2: ["CC6.1", "CC6.3"],
      iso27001: ["A.5.15", "A.8.2"],
      gdpr: ["Art. 25"],
      hipaa: ["164.308(a)(4)(ii)(B)"],
      nist_csf: ["PR.AA-05"],
    }),
  }),
  check({
    id: "gh_public_repo_creation_limited",
    cis: "1.2.2",
    title: "Members cannot create public repositories",
    severity: "MEDIUM",
    settings: ["org.members_can_create_public_repositories"],
    expected: "members_can_create_public_repositories is false",
    test: (v: TValues) => v["org.members_can_create_public_repositories"] === false,
    fix: "Organization settings › Member privileges › Repository creation: untick Public",
    controls: merge({
      soc2: ["CC6.1", "CC6.7"],
      iso27001: ["A.5.14", "A.8.12"],
      gdpr: ["Art. 25", "Art. 32"],
      hipaa: ["164.312(a)(1)"],
      nist_csf: ["PR.DS-01"],
    }),
  }),
];
