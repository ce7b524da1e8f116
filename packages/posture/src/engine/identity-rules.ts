import type { TSourceUser } from "@posture/connectors";
import type { TRuleContext } from "./context";
import { makeFinding } from "./finding";
import { RULE_IDS } from "./rule-ids";
import type { TDetectedFinding } from "./types";

const DAY_MS = 86_400_000;
export const DORMANT_AFTER_DAYS = 90;

/**
 * Suspended accounts cannot sign in: MFA and dormancy do not apply to them. A value the source
 * could not read (`unknown`: a permission or licence missing, reported as a coverage gap) is not
 * evidence either way: its rules are skipped rather than flagging every user.
 */
export function evaluateUser(ctx: TRuleContext, user: TSourceUser): TDetectedFinding[] {
  if (user.suspended) return [];
  const findings: TDetectedFinding[] = [];
  const common = { resourceId: user.id, resourceName: user.email, resourceType: "user" as const };
  const unknown = new Set(user.unknown ?? []);

  if (!unknown.has("mfa") && !user.mfaEnabled) {
    findings.push(
      user.isAdmin
        ? makeFinding({
            ruleId: RULE_IDS.adminWithoutMfa,
            severity: "CRITICAL",
            title: "Administrator without multi-factor authentication",
            ...common,
            details: { email: user.email, isAdmin: true },
          })
        : makeFinding({
            ruleId: RULE_IDS.userWithoutMfa,
            severity: "HIGH",
            title: "User without multi-factor authentication",
            ...common,
            details: { email: user.email, isAdmin: false },
          }),
    );
  }

  if (unknown.has("lastLogin")) return findings;
  // Never signed in counts from the account's creation: a brand-new account is not dormant.
  const lastSeen = Date.parse(user.lastLoginAt ?? user.createdAt);
  const idleDays = Number.isNaN(lastSeen) ? null : Math.floor((ctx.nowMs - lastSeen) / DAY_MS);
  if (idleDays !== null && idleDays > DORMANT_AFTER_DAYS) {
    findings.push(
      makeFinding({
        ruleId: RULE_IDS.dormantAccount,
        severity: "MEDIUM",
        title: `Account inactive for more than ${DORMANT_AFTER_DAYS} days`,
        ...common,
        details: { email: user.email, lastLoginAt: user.lastLoginAt, idleDays, isAdmin: user.isAdmin },
      }),
    );
  }
  return findings;
}

/** More than max(3, 5% of active accounts) administrators: one finding on the workspace. */
export function excessAdminsFinding(
  ctx: TRuleContext,
  activeUsers: number,
  admins: readonly string[],
): TDetectedFinding | null {
  const limit = Math.max(3, activeUsers * 0.05);
  if (admins.length <= limit) return null;
  return makeFinding({
    ruleId: RULE_IDS.excessAdmins,
    severity: "MEDIUM",
    title: `Too many administrators (${admins.length} for ${activeUsers} accounts)`,
    resourceId: "workspace",
    resourceName: ctx.workspaceName,
    resourceType: "workspace",
    details: {
      adminCount: admins.length,
      activeUsers,
      limit: Math.floor(limit),
      admins: admins.slice(0, 50),
    },
  });
}
