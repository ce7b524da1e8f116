import { randomBytes } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import type { TAppGrant, TSourceFile, TSourceUser } from "@posture/connectors";
import {
  connectors,
  findings,
  organizations,
  remediations,
  SEVERITY_RANK,
  type Db,
  type TSeverity,
} from "@posture/db";
import { createInProcessQueue } from "@posture/jobs";
import { createLogger, parseEncryptionKey, SYSTEM_ACTOR, type TJobQueue } from "@posture/platform";
import { fingerprintOf } from "@posture/posture";
import { openWorkspaceSnapshot } from "@posture/workspace";
import { remediationJobs, type TRemediationJobDeps } from "../jobs/module";
import { draftPlan } from "../services/draft";
import { insertPlan, stepsOf } from "../services/plan";
import type { TPreventionAction } from "../services/prevention";
import { createRateLimiter } from "../services/rate";
import { createFakeSource, createFakeWriter, type TFakeSource, type TFakeWriter } from "./fake-writer";

export const DOMAIN = "acme.test";
const at = (day: number) => new Date(Date.UTC(2026, 0, day)).toISOString();

export const user = (n: number): TSourceUser => ({
  id: `u${n}`,
  email: `user${n}@${DOMAIN}`,
  name: `User ${n}`,
  isAdmin: n === 1,
  mfaEnabled: true,
  suspended: false,
  lastLoginAt: at(20),
  createdAt: at(1),
});

const owner = { id: "owner", type: "user" as const, role: "owner" as const, emailAddress: `user1@${DOMAIN}` };

/** f1: a public link; f2: an outside writer and an outside domain; f3: an internal share only. */
export const FILES: TSourceFile[] = [
  {
    id: "f1",
    name: "Payroll 2026.xlsx",
    mimeType: "application/vnd.ms-excel",
    ownerEmail: `user1@${DOMAIN}`,
    driveId: null,
    permissions: [owner, { id: "anyone", type: "anyone", role: "reader" }],
    modifiedAt: at(5),
    sizeBytes: 1000,
  },
  {
    id: "f2",
    name: "Roadmap.docx",
    mimeType: "application/msword",
    ownerEmail: `user1@${DOMAIN}`,
    driveId: null,
    permissions: [
      owner,
      { id: "p-ext", type: "user", role: "writer", emailAddress: "someone@gmail.com" },
      { id: "p-dom", type: "domain", role: "reader", domain: "partner.example" },
      { id: "p-int", type: "user", role: "writer", emailAddress: `user2@${DOMAIN}` },
    ],
    modifiedAt: at(6),
    sizeBytes: 2000,
  },
  {
    id: "f3",
    name: "Team lunch.pdf",
    mimeType: "application/pdf",
    ownerEmail: `user2@${DOMAIN}`,
    driveId: null,
    permissions: [
      { ...owner, emailAddress: `user2@${DOMAIN}` },
      { id: "p-int", type: "user", role: "reader", emailAddress: `user1@${DOMAIN}` },
    ],
    modifiedAt: at(7),
    sizeBytes: 3000,
  },
];

export const GRANTS: TAppGrant[] = [1, 2].map((n) => ({
  id: `user${n}@${DOMAIN}:client-x`,
  clientId: "client-x",
  label: "Shady agent",
  kind: "ai_agent",
  publisher: "Unknown",
  isKnownPublisher: false,
  scopes: ["https://www.googleapis.com/auth/drive"],
  userEmail: `user${n}@${DOMAIN}`,
  grantedAt: at(3),
}));

type TFindingSeed = {
  ruleId: string;
  category: string;
  severity: TSeverity;
  resourceId: string;
  resourceName: string;
  resourceType: string;
  details: Record<string, unknown>;
};

const FINDINGS: TFindingSeed[] = [
  {
    ruleId: "public_link",
    category: "public_exposure",
    severity: "CRITICAL",
    resourceId: "f1",
    resourceName: "Payroll 2026.xlsx",
    resourceType: "file",
    details: { ownerEmail: `user1@${DOMAIN}`, driveId: null, role: "reader", permissionIds: ["anyone"] },
  },
  {
    ruleId: "external_share",
    category: "external_sharing",
    severity: "HIGH",
    resourceId: "f2",
    resourceName: "Roadmap.docx",
    resourceType: "file",
    details: {
      ownerEmail: `user1@${DOMAIN}`,
      driveId: null,
      targetCount: 2,
      targets: [
        {
          permissionId: "p-ext",
          type: "user",
          target: "someone@gmail.com",
          domain: "gmail.com",
          role: "writer",
        },
        {
          permissionId: "p-dom",
          type: "domain",
          target: "partner.example",
          domain: "partner.example",
          role: "reader",
        },
      ],
    },
  },
  {
    ruleId: "app_broad_scopes_unverified",
    category: "third_party_apps",
    severity: "CRITICAL",
    resourceId: "client-x",
    resourceName: "Shady agent",
    resourceType: "app",
    details: { clientId: "client-x" },
  },
];

export type TSeeded = {
  orgId: string;
  connectorId: string;
  source: TFakeSource;
  fake: TFakeWriter;
  findingIds: Record<"f1" | "f2" | "app", string>;
};

/**
 * An organization with one connector (write access on), its store, findings and fake source: a
 * Google connector, or with `grantsRestorable` a Microsoft 365 one (Graph can grant an app again).
 */
export async function seedTenant(
  db: Db,
  name = "Acme",
  opts: { grantsRestorable?: boolean } = {},
): Promise<TSeeded> {
  const type = opts.grantsRestorable ? "microsoft_365" : "google_workspace";
  const [org] = await db.insert(organizations).values({ name, plan: "business" }).returning();
  if (!org) throw new Error("no org");
  const [c] = await db
    .insert(connectors)
    .values({
      orgId: org.id,
      type,
      displayName: `${name} Google`,
      mode: "real",
      writeAccess: true,
    })
    .returning();
  if (!c) throw new Error("no connector");
  const sink = await openWorkspaceSnapshot(db, {
    orgId: org.id,
    connectorId: c.id,
    scanId: `scn_seed_${c.id}`,
    now: new Date(),
    workspace: { domain: DOMAIN, internalDomains: [DOMAIN] },
    mode: "full",
  });
  for (const n of [1, 2]) await sink.user(user(n));
  for (const f of FILES) await sink.file(f);
  for (const g of GRANTS) await sink.grant(g);
  await sink.commit();
  // The snapshot's grants go to oauth_grants with the scan's findings: written here as a scan does.
  for (const g of GRANTS)
    await db.execute(sql`
      INSERT INTO oauth_grants (id, org_id, connector_id, external_id, client_id, label, kind, publisher,
        is_known_publisher, scopes, user_email, granted_at)
      VALUES (${`grt_${randomBytes(8).toString("hex")}`}, ${org.id}, ${c.id}, ${g.id}, ${g.clientId}, ${g.label},
        ${g.kind}, ${g.publisher}, ${g.isKnownPublisher}, ${`{${g.scopes.join(",")}}`}::text[], ${g.userEmail},
        ${g.grantedAt}::timestamptz)`);
  const ids: string[] = [];
  for (const f of FINDINGS) {
    const [row] = await db
      .insert(findings)
      .values({
        orgId: org.id,
        connectorId: c.id,
        connectorType: type,
        fingerprint: fingerprintOf(f.ruleId, f.resourceId),
        ruleId: f.ruleId,
        category: f.category,
        severity: f.severity,
        severityRank: SEVERITY_RANK[f.severity],
        title: `${f.ruleId} on ${f.resourceName}`,
        resourceId: f.resourceId,
        resourceName: f.resourceName,
        resourceType: f.resourceType,
        details: f.details,
      })
      .returning({ id: findings.id });
    if (!row) throw new Error("no finding");
    ids.push(row.id);
  }
  const source = createFakeSource(FILES, GRANTS);
  return {
    orgId: org.id,
    connectorId: c.id,
    source,
    fake: createFakeWriter(source, opts),
    findingIds: { f1: ids[0] ?? "", f2: ids[1] ?? "", app: ids[2] ?? "" },
  };
}

/** A plan over findings (the planner's steps), written APPROVED as a planner would leave it. */
export async function approvedPlan(
  db: Db,
  t: TSeeded,
  actions: Array<{ action: TPreventionAction; findingIds: string[] }>,
  opts: { status?: "APPROVED" | "PLANNED"; dryRun?: boolean } = {},
): Promise<string> {
  const findingIds = actions.flatMap((a) => a.findingIds);
  const draft = await draftPlan(db, { orgId: t.orgId, findingIds });
  const id = await insertPlan(db, {
    orgId: t.orgId,
    origin: "manual",
    dryRun: opts.dryRun ?? false,
    request: { findingIds },
    predicted: { score: 0, grade: "F", scoreDelta: 0, before: { score: 0, grade: "F" } },
    plannedBy: { ...SYSTEM_ACTOR, orgId: t.orgId },
    steps: stepsOf(draft),
  });
  if ((opts.status ?? "APPROVED") === "APPROVED")
    await db
      .update(remediations)
      .set({ status: "APPROVED", approvedAt: new Date() })
      .where(eq(remediations.id, id));
  return id;
}

/** The seeded tenant's administrator, signed in: the scope a request's service call gets. */
export const adminScope = (t: TSeeded) => ({
  orgId: t.orgId,
  actor: { kind: "session" as const, userId: null, email: "admin@acme.test" },
});

/** The remediation jobs on an in-process queue, with the seeded tenant's fake writer. */
export function remediationQueue(
  db: Db,
  writerOf: () => TFakeWriter,
): { jobs: TJobQueue; deps: TRemediationJobDeps } {
  const jobs = createInProcessQueue(() => registry);
  const deps: TRemediationJobDeps = {
    db,
    jobs,
    runtime: {
      encryptionKey: parseEncryptionKey(randomBytes(32).toString("hex")),
      publicUrl: "http://localhost",
      webhookAllowPrivateTargets: false,
    },
    log: createLogger("warn"),
    writerFor: () => writerOf().writer,
    // Fast enough for tests, still a bucket every change goes through.
    rate: createRateLimiter({ perSecond: 1000 }),
    wait: async () => {},
    backoffMs: 1,
  };
  const registry = remediationJobs.definitions(deps);
  return { jobs, deps };
}
