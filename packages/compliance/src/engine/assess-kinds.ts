import type { TSeverity } from "@posture/db";
import { KIND_RULES, type TEvidenceKind } from "../catalogs";
import type { TSignals } from "./signals";
import { assessTenantChecks } from "./tenant-checks";

/** How one kind of evidence stands: `none` means nothing was collected to judge it. */
export type TKindStatus = "pass" | "partial" | "fail" | "none";
export type TKindAssessment = {
  kind: TEvidenceKind;
  status: TKindStatus;
  reason: string;
  findingIds: string[];
};

const pct = (n: number, d: number) => (d === 0 ? 0 : Math.round((n / d) * 1000) / 10);

function countOpen(s: TSignals, rules: readonly string[]): Record<TSeverity, number> {
  const out: Record<TSeverity, number> = { CRITICAL: 0, HIGH: 0, MEDIUM: 0, LOW: 0 };
  for (const r of rules)
    for (const [sev, n] of Object.entries(s.openByRule[r] ?? {})) out[sev as TSeverity] += n ?? 0;
  return out;
}

function describe(c: Record<TSeverity, number>): string {
  const parts = (["CRITICAL", "HIGH", "MEDIUM", "LOW"] as const)
    .filter((k) => c[k] > 0)
    .map((k) => `${c[k]} ${k}`);
  return parts.length === 0 ? "no open findings" : `open findings: ${parts.join(", ")}`;
}

/** A rule-backed kind: needs a scan in the period; severe open findings fail it, minor ones make it partial. */
function byFindings(s: TSignals, kind: TEvidenceKind, fact: string): TKindAssessment {
  const rules = KIND_RULES[kind] ?? [];
  const findingIds = s.topFindings.filter((f) => rules.includes(f.ruleId)).map((f) => f.id);
  if (s.sources.scansInPeriod === 0) {
    return { kind, status: "none", reason: "no completed scan in the period", findingIds: [] };
  }
  const c = countOpen(s, rules);
  const status: TKindStatus = c.CRITICAL + c.HIGH > 0 ? "fail" : c.MEDIUM + c.LOW > 0 ? "partial" : "pass";
  return { kind, status, reason: [fact, describe(c)].filter(Boolean).join("; "), findingIds };
}

type TAssessor = (s: TSignals) => TKindAssessment;

const ASSESSORS: Record<TEvidenceKind, TAssessor> = {
  // Every tenant check of the organization; a control takes only the checks mapped to it (evaluate.ts).
  tenant_config: (s) => assessTenantChecks(s, s.tenantChecks),
  mfa: (s) =>
    byFindings(
      s,
      "mfa",
      s.users.active > 0
        ? `MFA coverage ${pct(s.users.mfa, s.users.active)}% (${s.users.mfa}/${s.users.active} active users)`
        : "",
    ),
  admin: (s) =>
    byFindings(
      s,
      "admin",
      s.users.total > 0 ? `${s.users.admins} administrators, ${s.users.adminsWithoutMfa} without MFA` : "",
    ),
  public_link: (s) =>
    byFindings(
      s,
      "public_link",
      s.files.total > 0 ? `${s.files.public} of ${s.files.total} files public` : "",
    ),
  ext_share: (s) =>
    byFindings(
      s,
      "ext_share",
      s.files.total > 0
        ? `${s.files.external} of ${s.files.total} files shared outside the organization`
        : "",
    ),
  internal_exposure: (s) =>
    byFindings(
      s,
      "internal_exposure",
      s.files.total > 0
        ? `${s.files.orgWide} of ${s.files.total} files open to everyone in the organization (${s.files.orgWideSensitive} highly sensitive)`
        : "",
    ),
  oauth_app: (s) =>
    byFindings(
      s,
      "oauth_app",
      s.apps.total > 0
        ? `${s.apps.total} third-party apps and agents, ${s.apps.unverified} from unverified publishers`
        : "",
    ),
  dormant: (s) => byFindings(s, "dormant", s.users.total > 0 ? `${s.users.dormant} dormant accounts` : ""),
  trusted_domain: (s) => {
    if (s.trustedDomains > 0) {
      return {
        kind: "trusted_domain",
        status: "pass",
        reason: `${s.trustedDomains} trusted domains on the sharing allowlist`,
        findingIds: [],
      };
    }
    if (s.sources.scansInPeriod === 0)
      return {
        kind: "trusted_domain",
        status: "none",
        reason: "no completed scan in the period",
        findingIds: [],
      };
    const external = s.files.external;
    return external === 0
      ? {
          kind: "trusted_domain",
          status: "pass",
          reason: "no external sharing to allow-list",
          findingIds: [],
        }
      : {
          kind: "trusted_domain",
          status: "partial",
          reason: `no sharing allowlist while ${external} files are shared externally`,
          findingIds: [],
        };
  },
  posture: (s) => {
    if (s.sources.scansInPeriod === 0 || s.posture.score === null) {
      return { kind: "posture", status: "none", reason: "no completed scan in the period", findingIds: [] };
    }
    const score = s.posture.score;
    const status: TKindStatus = score >= 80 ? "pass" : score >= 60 ? "partial" : "fail";
    const severe = s.topFindings
      .filter((f) => f.severity === "CRITICAL" || f.severity === "HIGH")
      .map((f) => f.id);
    return {
      kind: "posture",
      status,
      reason: `posture score ${score} (${s.posture.grade ?? "-"}) from ${s.sources.scansInPeriod} scans; ${s.resolvedInPeriod} findings resolved in the period`,
      findingIds: severe.slice(0, 10),
    };
  },
  audit_log: (s) => {
    if (!s.audit.chainIntact) {
      return {
        kind: "audit_log",
        status: "fail",
        reason: `audit trail hash chain broken at entry ${s.audit.brokenAtSeq}`,
        findingIds: [],
      };
    }
    return s.audit.entriesInPeriod > 0
      ? {
          kind: "audit_log",
          status: "pass",
          reason: `${s.audit.entriesInPeriod} audit entries in the period; hash chain of ${s.audit.total} entries verified`,
          findingIds: [],
        }
      : {
          kind: "audit_log",
          status: "partial",
          reason: "hash chain verified but no audit entries in the period",
          findingIds: [],
        };
  },
  data_class: (s) => {
    if (s.files.sensitive === 0) {
      return s.files.total === 0
        ? { kind: "data_class", status: "none", reason: "no file inventory", findingIds: [] }
        : {
            kind: "data_class",
            status: "pass",
            reason: `${s.files.total} files classified; none sensitive`,
            findingIds: [],
          };
    }
    const share = pct(s.files.sensitiveLabelled, s.files.sensitive);
    const status: TKindStatus = share >= 90 ? "pass" : share > 0 ? "partial" : "fail";
    return {
      kind: "data_class",
      status,
      reason: `${s.files.sensitiveLabelled} of ${s.files.sensitive} sensitive files carry a label (${share}%)`,
      findingIds: [],
    };
  },
  inventory: (s) =>
    s.sources.scansInPeriod > 0 && s.users.total + s.files.total > 0
      ? {
          kind: "inventory",
          status: "pass",
          reason: `inventory of ${s.users.total} users, ${s.files.total} files, ${s.apps.total} apps from ${s.sources.connected} sources`,
          findingIds: [],
        }
      : {
          kind: "inventory",
          status: "none",
          reason: "no resource inventory from a scan in the period",
          findingIds: [],
        },
  anomaly: (s) =>
    s.activityEventsInPeriod > 0
      ? {
          kind: "anomaly",
          status: "pass",
          reason: `${s.activityEventsInPeriod} activity records analysed in the period`,
          findingIds: [],
        }
      : { kind: "anomaly", status: "none", reason: "no activity telemetry in the period", findingIds: [] },
  incident: (s) => {
    if (s.incidents.inPeriod === 0 && s.incidents.resolved === 0) {
      return {
        kind: "incident",
        status: "none",
        reason: "no incident recorded; the response process is not evidenced",
        findingIds: [],
      };
    }
    const missing = s.incidents.resolved - s.incidents.withPostMortem;
    return missing > 0
      ? {
          kind: "incident",
          status: "partial",
          reason: `${s.incidents.resolved} incidents resolved, ${missing} without a post-mortem`,
          findingIds: [],
        }
      : {
          kind: "incident",
          status: "pass",
          reason: `${s.incidents.inPeriod} incidents in the period, ${s.incidents.open} open; every resolved incident has a post-mortem`,
          findingIds: [],
        };
  },
  awareness: (s) => {
    if (s.users.active === 0)
      return { kind: "awareness", status: "none", reason: "no user inventory", findingIds: [] };
    const share = pct(s.users.riskySharers, s.users.active);
    const status: TKindStatus = share < 5 ? "pass" : share < 20 ? "partial" : "fail";
    return {
      kind: "awareness",
      status,
      reason: `${s.users.riskySharers} of ${s.users.active} active users (${share}%) own files shared outside the organization`,
      findingIds: [],
    };
  },
};

export function assessKind(s: TSignals, kind: TEvidenceKind): TKindAssessment {
  return ASSESSORS[kind](s);
}
