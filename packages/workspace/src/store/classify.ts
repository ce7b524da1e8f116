import { hash } from "node:crypto";
import { PERMISSION_ROLE_RANK, type TPermission, type TPermissionRole } from "@posture/connectors";
import {
  fileSensitivity,
  lowerSeverity,
  outsideItemSeverity,
  publicLinkSeverity,
  SEVERITY_RANK,
  type TExposure,
  type TSensitivity,
  type TSeverity,
  type TSharingType,
  type TShareType,
} from "@posture/db";
import { domainIn, emailDomain } from "@posture/platform";

// How the resource store rates what it stores. Pure functions: the snapshot writer and the
// re-rating after a trusted-domain change must agree, and they are unit-tested here.

/** A row id derived from (connector, external id): the same resource keeps its id across rescans. */
export function stableId(prefix: string, connectorId: string, externalId: string): string {
  // One-shot hash(): no Hash object per row (a rescan hashes every stored row's id).
  const digest = hash("sha256", `${connectorId}\0${externalId}`, "base64url");
  return `${prefix}_${digest.slice(0, 27)}`;
}

/**
 * Sensitivity from the file's labels and the words of its name: `fileSensitivity` of `@posture/db`,
 * the one function the rule engine reads too (labels of Confidential and above make a file highly
 * sensitive; a label never lowers what the name suggests).
 */
export const sensitivityOf = fileSensitivity;

export type TClassified = { sharingType: TSharingType; target: string; domain: string | null };

export function classifyPermission(p: TPermission, internal: ReadonlySet<string>): TClassified {
  if (p.type === "anyone") return { sharingType: "public", target: "anyone", domain: null };
  if (p.type === "domain") {
    const domain = (p.domain ?? "").toLowerCase();
    if (domain === "" || domainIn(internal, domain))
      return { sharingType: "internal", target: domain, domain: null };
    return { sharingType: "external_domain", target: domain, domain };
  }
  const email = (p.emailAddress ?? "").toLowerCase();
  const domain = email ? emailDomain(email) : (p.domain?.toLowerCase() ?? null);
  if (domain === null || domainIn(internal, domain))
    return { sharingType: "internal", target: email, domain: null };
  return { sharingType: "external_user", target: email || domain, domain };
}

export function widerRole(a: string, b: string): string {
  return (PERMISSION_ROLE_RANK[b as TPermissionRole] ?? 0) > (PERMISSION_ROLE_RANK[a as TPermissionRole] ?? 0)
    ? b
    : a;
}

/**
 * The severity of one sharing item, before trusted domains: the share scale of `@posture/db`
 * (the findings' rules read the same one), with a highly sensitive file raising an outside share
 * one level.
 */
export function baseSeverity(type: TShareType, role: string, sensitivity: TSensitivity): TSeverity {
  return type === "public" ? publicLinkSeverity(role, sensitivity) : outsideItemSeverity(role, sensitivity);
}

/** A share whose every outside domain is trusted is rated one level lower. */
export function ratedSeverity(
  base: TSeverity,
  domains: readonly string[],
  trusted: ReadonlySet<string>,
): TSeverity {
  return domains.length > 0 && domains.every((d) => domainIn(trusted, d)) ? lowerSeverity(base) : base;
}

const SENSITIVITY_WEIGHT: Record<TSensitivity, number> = { high: 3, medium: 2, low: 1 };
const AUDIENCE_WEIGHT: Record<TShareType, number> = { public: 3, external_domain: 2, external_user: 1 };

/**
 * riskRank: severity rank × 1000 + sensitivity × 100 + audience × 10 + fan-out (0–9). Higher is
 * riskier; everything below the thousands is independent of trusted domains.
 */
export function riskRank(
  severity: TSeverity,
  sensitivity: TSensitivity,
  type: TShareType,
  targets: number,
): number {
  return (
    SEVERITY_RANK[severity] * 1000 +
    SENSITIVITY_WEIGHT[sensitivity] * 100 +
    AUDIENCE_WEIGHT[type] * 10 +
    Math.min(Math.max(targets, 0), 9)
  );
}

/** 0–100 for graph nodes: the severity's band, raised by sensitivity. */
export function riskScore(severity: TSeverity, sensitivity: TSensitivity): number {
  const band: Record<TSeverity, number> = { CRITICAL: 85, HIGH: 65, MEDIUM: 40, LOW: 15 };
  return Math.min(100, band[severity] + (sensitivity === "high" ? 10 : sensitivity === "medium" ? 5 : 0));
}

const EXPOSURE_RANK: Record<TExposure, number> = { private: 0, internal: 1, external: 2, public: 3 };

export function widerExposure(a: TExposure, b: TExposure): TExposure {
  return EXPOSURE_RANK[b] > EXPOSURE_RANK[a] ? b : a;
}

export const DORMANT_DAYS = 90;
