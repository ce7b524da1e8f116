import { randomBytes } from "node:crypto";
import { and, asc, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createSourceAdapter,
  createSourceWriter,
  GOOGLE_WRITE_ACCESS,
  type TCreateSourceAdapterInput,
} from "@posture/connectors";
import { ALL_CONNECTOR_SCOPES, startFakeGoogle, type TFakeGoogle } from "@posture/fakes/google";
import { buildGoogleFixture, generateServiceAccount } from "@posture/fakes/google-fixture";
import {
  connectors,
  organizations,
  remediations,
  remediationSteps,
  workspaceShares,
  type Db,
} from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { SYSTEM_ACTOR } from "@posture/platform";
import { openWorkspaceSnapshot } from "@posture/workspace";
import {
  applyJobId,
  REMEDIATION_APPLY_JOB,
  REMEDIATION_UNDO_JOB,
  requestApply,
  undoJobId,
} from "./services/apply";
import { draftPlan } from "./services/draft";
import { insertPlan, stepsOf } from "./services/plan";
import { requestUndo } from "./services/undo";
import { remediationQueue } from "./testing/seed";

// Apply and undo through the Google writer against the fake Google tenant (the real requests, the
// real refusals): a discoverable public link (`allowFileDiscovery`), a discoverable domain link and
// an outside group's permission are removed, then put back as they were — same ids, same flags.

const ACCOUNT = generateServiceAccount("admin@acme.test");
let tdb: TestDb;
let db: Db;
let google: TFakeGoogle;
const fixture = buildGoogleFixture();

beforeAll(async () => {
  tdb = await createTestDb();
  db = tdb.db;
  google = await startFakeGoogle({
    fixture,
    serviceAccounts: [{ clientEmail: ACCOUNT.credentials.clientEmail, publicKey: ACCOUNT.publicKey }],
    authorizedScopes: [
      ...new Set([...ALL_CONNECTOR_SCOPES, ...GOOGLE_WRITE_ACCESS.map((r) => r.permission)]),
    ],
  });
});
afterAll(async () => {
  await google?.close();
  await tdb?.drop();
});

const sourceInput = (connectorId: string): TCreateSourceAdapterInput => ({
  type: "google_workspace",
  mode: "real",
  connectorId,
  credentials: ACCOUNT.credentials,
  config: {},
  endpoints: { google: google.endpoints },
});

/** The connector, its store as a scan of the fake tenant leaves it, and the shares to remove. */
async function tenant() {
  const [org] = await db.insert(organizations).values({ name: "Acme", plan: "business" }).returning();
  if (!org) throw new Error("no org");
  const [c] = await db
    .insert(connectors)
    .values({ orgId: org.id, type: "google_workspace", displayName: "Acme", mode: "real", writeAccess: true })
    .returning();
  if (!c) throw new Error("no connector");
  const sink = await openWorkspaceSnapshot(db, {
    orgId: org.id,
    connectorId: c.id,
    scanId: `scn_${randomBytes(6).toString("hex")}`,
    now: new Date(),
    workspace: { domain: "acme.test", internalDomains: ["acme.test", "acme-labs.test"] },
    mode: "full",
  });
  const adapter = createSourceAdapter(sourceInput(c.id));
  for await (const user of adapter.users()) await sink.user(user);
  for await (const file of adapter.files()) await sink.file(file);
  await sink.commit();
  return { orgId: org.id, connectorId: c.id };
}

const permissionsOf = (fileId: string) =>
  fixture.files.find((f) => f.id === fileId)?.permissions.filter((p) => p.role !== "owner");

describe("undo through the Google writer", () => {
  it("puts back a discoverable public link, a discoverable domain link and an outside group, as they were", async () => {
    // On the web (`anyone`, findable), findable by anyone at a partner, and a partner's group.
    google.tenant.unshare("f-public", "anyoneWithLink");
    google.tenant.share("f-public", {
      id: "anyone",
      type: "anyone",
      role: "reader",
      allowFileDiscovery: true,
    } as never);
    google.tenant.share("f-private", {
      id: "perm-domain-partner.example",
      type: "domain",
      role: "reader",
      domain: "partner.example",
      allowFileDiscovery: true,
    } as never);
    google.tenant.share("f-private", {
      id: "p-partner-team",
      type: "group",
      role: "writer",
      emailAddress: "team@partner.example",
    });
    const before = { public: permissionsOf("f-public"), private: permissionsOf("f-private") };
    const t = await tenant();
    const shares = await db
      .select({ id: workspaceShares.id })
      .from(workspaceShares)
      .where(
        and(
          eq(workspaceShares.connectorId, t.connectorId),
          inArray(workspaceShares.fileExternalId, ["f-public", "f-private"]),
        ),
      );
    const draft = await draftPlan(db, { orgId: t.orgId, shareIds: shares.map((s) => s.id) });
    const id = await insertPlan(db, {
      orgId: t.orgId,
      origin: "manual",
      request: { shareIds: shares.map((s) => s.id) },
      predicted: { score: 0, grade: "F", scoreDelta: 0, before: { score: 0, grade: "F" } },
      plannedBy: { ...SYSTEM_ACTOR, orgId: t.orgId },
      steps: stepsOf(draft),
    });
    await db
      .update(remediations)
      .set({ status: "APPROVED", approvedAt: new Date() })
      .where(eq(remediations.id, id));
    const writer = createSourceWriter(sourceInput(t.connectorId));
    const run = async (job: "apply" | "undo") => {
      const { jobs } = remediationQueue(db, () => ({ writer }) as never);
      const scope = {
        orgId: t.orgId,
        actor: { kind: "session" as const, userId: null, email: "admin@acme.test" },
      };
      if (job === "apply") await requestApply(db, { ...scope, id, applyKey: "k" }, { jobs });
      else await requestUndo(db, { ...scope, id }, { jobs });
      await jobs.runAndWait(
        job === "apply" ? REMEDIATION_APPLY_JOB : REMEDIATION_UNDO_JOB,
        { remediationId: id },
        { jobId: job === "apply" ? applyJobId(id) : undoJobId(id), timeoutMs: 30_000 },
      );
      await jobs.close();
      const steps = await db
        .select({ action: remediationSteps.action, status: remediationSteps.status })
        .from(remediationSteps)
        .where(eq(remediationSteps.remediationId, id))
        .orderBy(asc(remediationSteps.seq));
      return steps.map((s) => `${s.action}:${s.status}`).sort();
    };

    expect(await run("apply")).toEqual([
      "remove_external_domain:APPLIED",
      "remove_external_user:APPLIED",
      "remove_public_link:APPLIED",
    ]);
    expect(permissionsOf("f-public")).toEqual([]);
    expect(permissionsOf("f-private")).toEqual([]);

    expect(await run("undo")).toEqual([
      "remove_external_domain:REVERTED",
      "remove_external_user:REVERTED",
      "remove_public_link:REVERTED",
    ]);
    expect(permissionsOf("f-public")).toEqual(before.public);
    expect(permissionsOf("f-private")?.sort((a, b) => (a.id ?? "").localeCompare(b.id ?? ""))).toEqual(
      before.private?.sort((a, b) => (a.id ?? "").localeCompare(b.id ?? "")),
    );
  }, 120_000);
});
