import { sql } from "drizzle-orm";
import {
  allowLongStatements,
  connectors,
  findings,
  incidents,
  newId,
  oauthGrants,
  scans,
  type Db,
  type TSeverity,
} from "@posture/db";
import { recordAudit } from "@posture/platform";

/**
 * Seeds one organization's workspace the way a scan would leave it: a connector, completed scans
 * (a score per day), findings, the workspace snapshot (users, files, permissions), OAuth grants,
 * activity, incidents and audit entries. Bulk rows come from generate_series, so a million files
 * take seconds. For tests and benchmarks; other areas' code fills these tables in production.
 */
export type TSeedOptions = {
  orgId: string;
  users?: number;
  files?: number;
  /** Completed scans, one per day ending today, with these scores (oldest first). */
  scores?: number[];
  findings?: Array<{
    ruleId: string;
    category: string;
    severity: TSeverity;
    title?: string;
    resourceName?: string;
  }>;
  apps?: number;
  incidents?: Array<{ status: "OPEN" | "RESOLVED" | "CLOSED"; withPostMortem?: boolean }>;
  activity?: number;
  auditEntries?: number;
  trustedDomains?: string[];
  connectorHealth?: string;
};

const DAY = 86_400_000;

export async function seedWorkspace(db: Db, o: TSeedOptions): Promise<{ connectorId: string }> {
  const [con] = await db
    .insert(connectors)
    .values({
      orgId: o.orgId,
      type: "google_workspace",
      displayName: "Seeded Drive",
      mode: "demo",
      healthStatus: o.connectorHealth ?? "healthy",
    })
    .returning({ id: connectors.id });
  if (!con) throw new Error("connector insert failed");
  const connectorId = con.id;
  const now = Date.now();
  const scores = o.scores ?? [70];
  for (const [i, score] of scores.entries()) {
    const at = new Date(now - (scores.length - 1 - i) * DAY - 60_000);
    await db.insert(scans).values({
      orgId: o.orgId,
      connectorId,
      connectorName: "Seeded Drive",
      trigger: "manual",
      status: "COMPLETE",
      postureScore: score,
      resources: (o.users ?? 0) + (o.files ?? 0),
      breakdown: {
        score,
        grade: score >= 90 ? "A" : score >= 80 ? "B" : score >= 70 ? "C" : score >= 60 ? "D" : "F",
        categories: [
          { category: "public_exposure", deductionPoints: Math.round((100 - score) * 0.4), findingCount: 3 },
          { category: "identity", deductionPoints: Math.round((100 - score) * 0.35), findingCount: 2 },
          {
            category: "third_party_apps",
            deductionPoints: Math.round((100 - score) * 0.25),
            findingCount: 1,
          },
        ],
        topImprovements: [],
        quickWins: [],
      },
      startedAt: at,
      completedAt: at,
      createdAt: at,
    });
  }
  const rank: Record<TSeverity, number> = { CRITICAL: 4, HIGH: 3, MEDIUM: 2, LOW: 1 };
  for (const [i, f] of (o.findings ?? []).entries()) {
    await db.insert(findings).values({
      orgId: o.orgId,
      connectorId,
      connectorType: "google_workspace",
      fingerprint: `${f.ruleId}:${i}:${newId("fp")}`,
      ruleId: f.ruleId,
      category: f.category,
      severity: f.severity,
      severityRank: rank[f.severity],
      title: f.title ?? `${f.ruleId} finding ${i}`,
      resourceId: `res-${i}`,
      resourceName: f.resourceName ?? `resource-${i}`,
      resourceType: "file",
    });
  }
  const users = o.users ?? 0;
  if (users > 0) {
    await db.execute(sql`INSERT INTO workspace_users (id, org_id, connector_id, external_id, email, name, is_admin, mfa_enabled, status, dormant, external_shares_owned)
      SELECT 'wsu_' || ${connectorId} || '_' || g, ${o.orgId}, ${connectorId}, 'u' || g, 'user' || g || '@seed.example', 'User ' || g,
             g <= 3, g % 5 <> 0, 'active', g % 17 = 0, CASE WHEN g % 7 = 0 THEN 2 ELSE 0 END
      FROM generate_series(1, ${users}) g`);
  }
  const files = o.files ?? 0;
  // A million generated rows take longer than a request's statement bound.
  if (files > 0) {
    await db.transaction(async (tx) => {
      await tx.execute(allowLongStatements(SEED_STATEMENT_MS));
      await seedFiles(tx as unknown as Db, { orgId: o.orgId, connectorId, files, users });
    });
  }
  for (let i = 0; i < (o.apps ?? 0); i++) {
    await db.insert(oauthGrants).values({
      orgId: o.orgId,
      connectorId,
      externalId: `app-${i}`,
      label: i % 2 === 0 ? `AI Notes ${i}` : `Calendar Sync ${i}`,
      kind: i % 2 === 0 ? "ai_agent" : "oauth_app",
      publisher: i % 3 === 0 ? "Unknown Labs" : "Google",
      isKnownPublisher: i % 3 !== 0,
      scopes: ["https://www.googleapis.com/auth/drive"],
      userEmail: "user1@seed.example",
      grantedAt: new Date(now - i * DAY),
    });
  }
  if ((o.activity ?? 0) > 0) {
    await db.execute(sql`INSERT INTO activity_events (org_id, connector_id, external_id, principal, kind, at, count)
      SELECT ${o.orgId}, ${connectorId}, 'ev-' || ${connectorId} || '-' || g, 'user' || (1 + g % 10) || '@seed.example', 'file_access',
             now() - (g % 20) * interval '1 day', 1 FROM generate_series(1, ${o.activity ?? 0}) g`);
  }
  for (const inc of o.incidents ?? []) {
    await db.insert(incidents).values({
      orgId: o.orgId,
      title: `Seeded incident (${inc.status})`,
      status: inc.status,
      priority: "P2",
      postMortem: inc.withPostMortem
        ? {
            summary: "Contained",
            rootCause: "Public link",
            lessons: "Review links",
            actionItems: [{ title: "Audit links", owner: "it" }],
          }
        : null,
    });
  }
  for (let i = 0; i < (o.auditEntries ?? 0); i++) {
    await recordAudit(db, {
      orgId: o.orgId,
      action: "SCAN_TRIGGERED",
      target: connectorId,
      userEmail: "owner@seed.example",
    });
  }
  for (const domain of o.trustedDomains ?? []) {
    await db.execute(
      sql`INSERT INTO trusted_domains (id, org_id, domain) VALUES (${newId("tdm")}, ${o.orgId}, ${domain})`,
    );
  }
  return { connectorId };
}

/** A realistic mix: severe MFA and sharing findings, minor app findings. */
export const TYPICAL_FINDINGS: TSeedOptions["findings"] = [
  {
    ruleId: "admin_without_mfa",
    category: "identity",
    severity: "CRITICAL",
    title: "Administrator without MFA",
    resourceName: "admin@seed.example",
  },
  {
    ruleId: "user_without_mfa",
    category: "identity",
    severity: "MEDIUM",
    title: "User without MFA",
    resourceName: "user5@seed.example",
  },
  {
    ruleId: "public_link",
    category: "public_exposure",
    severity: "HIGH",
    title: "Public link on a sensitive file",
    resourceName: "payroll-2026.xlsx",
  },
  {
    ruleId: "external_share",
    category: "external_sharing",
    severity: "MEDIUM",
    title: "File shared with an external user",
    resourceName: "roadmap.docx",
  },
  {
    ruleId: "app_unverified_publisher",
    category: "third_party_apps",
    severity: "LOW",
    title: "App from an unverified publisher",
    resourceName: "AI Notes 0",
  },
];

const SEED_STATEMENT_MS = 600_000;

/** `files` generated files (every 997th public, every 113th shared with one outside person) and their permissions. */
async function seedFiles(
  tx: Db,
  s: { orgId: string; connectorId: string; files: number; users: number },
): Promise<void> {
  await tx.execute(sql`INSERT INTO workspace_files (id, org_id, connector_id, external_id, name, mime_type, owner_email, sensitivity, labels, exposure, external_permission_count, size_bytes, modified_at)
      SELECT 'wsf_' || ${s.connectorId} || '_' || g, ${s.orgId}, ${s.connectorId}, 'f' || g, 'file-' || g || '.docx', 'application/vnd.google-apps.document',
             'user' || (1 + g % ${Math.max(1, s.users)}) || '@seed.example',
             CASE WHEN g % 50 = 0 THEN 'high' WHEN g % 10 = 0 THEN 'medium' ELSE 'low' END,
             CASE WHEN g % 100 = 0 THEN ARRAY['Confidential'] ELSE ARRAY[]::text[] END,
             CASE WHEN g % 997 = 0 THEN 'public' WHEN g % 113 = 0 THEN 'external' ELSE 'internal' END,
             CASE WHEN g % 113 = 0 THEN 1 ELSE 0 END, 1024 * (g % 500), now() - (g % 400) * interval '1 day'
      FROM generate_series(1, ${s.files}) g`);
  await tx.execute(sql`INSERT INTO workspace_permissions (id, org_id, connector_id, file_id, external_id, sharing_type, target, role)
      SELECT 'wsp_' || f.id, f.org_id, f.connector_id, f.id, 'p-' || f.external_id,
             CASE WHEN f.exposure = 'public' THEN 'public' ELSE 'external_user' END,
             CASE WHEN f.exposure = 'public' THEN 'anyone' ELSE 'partner@outside.example' END, 'reader'
      FROM workspace_files f WHERE f.connector_id = ${s.connectorId} AND f.exposure IN ('public', 'external')`);
}
