import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { connectors, type Db } from "@posture/db";
import { createApiKeyFor, createOrganization, createUser } from "@posture/account";
import { recordAudit, type TPlanId } from "@posture/platform";

/** An organization with one OWNER holding an API key: the caller every scenario uses. */
export async function seedOwnerWithKey(db: Db, plan: TPlanId = "business") {
  const org = await createOrganization(db, { name: `Bench ${randomBytes(3).toString("hex")}`, plan });
  const user = await createUser(db, {
    orgId: org.id,
    email: `bench-${randomBytes(4).toString("hex")}@example.test`,
    password: randomBytes(12).toString("hex"),
    role: "OWNER",
  });
  const { key } = await createApiKeyFor(db, { orgId: org.id, userId: user.id, name: "bench" });
  return { orgId: org.id, userId: user.id, userEmail: user.email, key };
}

/** `count` findings generated in the database: a realistic spread of severities, categories and times. */
export async function seedFindings(db: Db, orgId: string, count: number): Promise<void> {
  const [connector] = await db
    .insert(connectors)
    .values({ orgId, type: "google_workspace", displayName: "Bench", mode: "demo" })
    .returning();
  await db.execute(sql`
    insert into findings (id, org_id, connector_id, connector_type, fingerprint, rule_id, category, severity,
      severity_rank, title, resource_id, resource_name, resource_type, status, detected_at)
    select 'fnd_bench_' || g, ${orgId}, ${connector?.id ?? ""}, 'google_workspace', md5(g::text),
      (array['public_link','external_share','user_without_mfa','app_broad_scopes'])[1 + g % 4],
      (array['public_exposure','external_sharing','identity','third_party_apps'])[1 + g % 4],
      (array['CRITICAL','HIGH','MEDIUM','LOW'])[1 + (g * 7) % 4], 4 - (g * 7) % 4,
      'Finding ' || g, 'res_' || g, 'File ' || g || '.xlsx', 'file',
      case when g % 10 = 0 then 'RESOLVED' else 'OPEN' end,
      now() - (g || ' seconds')::interval
    from generate_series(1, ${count}) g`);
  // As autovacuum leaves a settled table: statistics and the visibility map (index-only counts).
  await db.execute(sql`vacuum analyze findings`);
}

/** `count` audit entries by the owner, alternating two actions over seven targets. */
export async function seedAudit(
  db: Db,
  owner: { orgId: string; userId: string; userEmail: string },
  count: number,
): Promise<void> {
  for (let i = 0; i < count; i++) {
    await recordAudit(db, {
      orgId: owner.orgId,
      action: i % 2 === 0 ? "SCAN_TRIGGERED" : "CONNECTOR_CONNECTED",
      target: `connector-${i % 7}`,
      userId: owner.userId,
      userEmail: owner.userEmail,
    });
  }
}
