import { organizations, prepared, type Db } from "@posture/db";
import { effectivePlan, firstOr404, iso, PLANS } from "@posture/platform";
import { eq, sql } from "drizzle-orm";

function utcMidnight(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

// One prepared statement, one round trip: the plan columns and both counts. Integrators poll this.
const usageQuery = (db: Db) =>
  prepared(db, "get_usage", (d) =>
    d
      .select({
        plan: organizations.plan,
        gracePlan: organizations.gracePlan,
        graceEndsAt: organizations.graceEndsAt,
        // Written out: drizzle leaves columns unqualified in a select list, which a correlated
        // subquery would bind to its own table.
        sources: sql<number>`(select count(*)::int from connectors c where c.org_id = organizations.id)`,
        manualScansToday: sql<number>`(select count(*)::int from scans s
          where s.org_id = organizations.id and s.trigger = 'manual'
            and s.created_at >= ${sql.placeholder("since")})`,
      })
      .from(organizations)
      .where(eq(organizations.id, sql.placeholder("orgId")))
      .limit(1)
      .prepare("get_usage"),
  );

/**
 * `plan` is the plan the organization is on; limits and features are what it may use now, which
 * during a downgrade's grace period are still the previous plan's.
 */
export async function getUsage(db: Db, input: { orgId: string }, now = new Date()) {
  const org = firstOr404(
    await usageQuery(db).execute({ orgId: input.orgId, since: utcMidnight(now).toISOString() }),
    "Organization",
  );
  const effective = effectivePlan(org, now);
  const limits = PLANS[effective.plan];
  return {
    plan: org.plan,
    inGrace: effective.inGrace,
    graceEndsAt: iso(effective.graceEndsAt),
    sources: { used: Number(org.sources), max: limits.sourcesMax },
    scans: { usedToday: Number(org.manualScansToday), maxPerDay: limits.scansPerDay },
    features: { ...limits.features },
  };
}
