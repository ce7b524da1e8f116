import { connectors, scans, type Db } from "@posture/db";
import { AppError, effectivePlan, PLANS } from "@posture/platform";
import { and, count, eq, gte } from "drizzle-orm";
import { findOrganization } from "./organizations";

function utcMidnight(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

/**
 * `plan` is the plan the organization is on; limits and features are what it may use now, which
 * during a downgrade's grace period are still the previous plan's.
 */
export async function getUsage(db: Db, input: { orgId: string }, now = new Date()) {
  const org = await findOrganization(db, input.orgId);
  if (!org) throw new AppError("not_found", "Organization not found");
  const effective = effectivePlan(org, now);
  const limits = PLANS[effective.plan];
  const [[sources], [manualScans]] = await Promise.all([
    db.select({ n: count() }).from(connectors).where(eq(connectors.orgId, org.id)),
    db
      .select({ n: count() })
      .from(scans)
      .where(
        and(eq(scans.orgId, org.id), eq(scans.trigger, "manual"), gte(scans.createdAt, utcMidnight(now))),
      ),
  ]);
  return {
    plan: org.plan,
    inGrace: effective.inGrace,
    graceEndsAt: effective.graceEndsAt?.toISOString() ?? null,
    sources: { used: sources?.n ?? 0, max: limits.sourcesMax },
    scans: { usedToday: manualScans?.n ?? 0, maxPerDay: limits.scansPerDay },
    features: { ...limits.features },
  };
}
