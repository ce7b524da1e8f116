import type { TSharedDrive } from "@posture/connectors";
import type { TRuleContext } from "./context";
import { emailDomain } from "./domains";
import { makeFinding } from "./finding";
import { RULE_IDS } from "./rule-ids";
import { lowerSeverity, type TDetectedFinding, type TSeverity } from "./types";

export function evaluateSharedDrive(ctx: TRuleContext, drive: TSharedDrive): TDetectedFinding | null {
  const outsiders: Array<{ email: string; role: string; trusted: boolean }> = [];
  for (const member of drive.members) {
    const domain = emailDomain(member.email);
    if (domain === null || ctx.internal.has(domain)) continue;
    outsiders.push({ email: member.email, role: member.role, trusted: ctx.trusted.has(domain) });
  }
  if (outsiders.length === 0) return null;

  const unrestricted = !drive.restrictions.domainUsersOnly;
  const allTrusted = outsiders.every((m) => m.trusted);
  const base: TSeverity = unrestricted ? "HIGH" : "MEDIUM";
  return makeFinding({
    ruleId: RULE_IDS.sharedDriveExternalMembers,
    severity: allTrusted ? lowerSeverity(base) : base,
    title: unrestricted
      ? "Shared drive has outside members and is open to sharing outside the organization"
      : "Shared drive has outside members",
    resourceId: drive.id,
    resourceName: drive.name,
    resourceType: "shared_drive",
    details: {
      externalMembers: outsiders.slice(0, 50),
      externalMemberCount: outsiders.length,
      memberCount: drive.members.length,
      restrictions: drive.restrictions,
      trustedOnly: allTrusted,
    },
  });
}
