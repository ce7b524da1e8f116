import { and, count, eq, gte } from "drizzle-orm";
import { organizations, scans, type Db } from "@posture/db";
import { effectivePlan, PLANS } from "@posture/platform";

export function utcMidnight(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

/**
 * Scans of one trigger the organization started since 00:00 UTC. It counts scan rows, which
 * outlive their connector (`scans.connector_id` is set null on delete), so deleting and
 * recreating a source never resets the count.
 */
export async function scansStartedToday(
  db: Db,
  q: { orgId: string; trigger: "manual" | "scheduled"; now?: Date },
): Promise<number> {
  const { orgId, trigger, now = new Date() } = q;
  const [row] = await db
    .select({ n: count() })
    .from(scans)
    .where(and(eq(scans.orgId, orgId), eq(scans.trigger, trigger), gte(scans.createdAt, utcMidnight(now))));
  return row?.n ?? 0;
}

/**
 * Whether the daily sweep may start one more scheduled scan for this organization today: at most
 * one per source the plan allows. Without the cap, each deleted-and-recreated connector (never
 * scanned, so due at once) would be a free scan beyond the plan's manual ceiling.
 */
export async function scheduledScanAllowed(db: Db, q: { orgId: string; now?: Date }): Promise<boolean> {
  const { orgId, now = new Date() } = q;
  const [org] = await db
    .select({
      plan: organizations.plan,
      gracePlan: organizations.gracePlan,
      graceEndsAt: organizations.graceEndsAt,
    })
    .from(organizations)
    .where(eq(organizations.id, orgId));
  if (!org) return false;
  const max = PLANS[effectivePlan(org, now).plan].sourcesMax;
  if (max === null) return true;
  return (await scansStartedToday(db, { orgId, trigger: "scheduled", now })) < max;
}
