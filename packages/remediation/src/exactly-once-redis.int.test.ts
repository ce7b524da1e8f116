import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createSourceWriter, GOOGLE_WRITE_ACCESS, type TWriteFile } from "@posture/connectors";
import { ALL_CONNECTOR_SCOPES, startFakeGoogle, type TFakeGoogle } from "@posture/fakes/google";
import { buildGoogleFixture, generateServiceAccount } from "@posture/fakes/google-fixture";
import { connectors, organizations, remediations } from "@posture/db";
import { encryptSecret, parseEncryptionKey, SYSTEM_ACTOR } from "@posture/platform";
import {
  applyJobId,
  REMEDIATION_APPLY_JOB,
  REMEDIATION_SWEEP_JOB,
  REMEDIATION_UNDO_JOB,
  requestApply,
  undoJobId,
} from "./services/apply";
import { insertPlan } from "./services/plan";
import {
  enqueueSoon,
  idleQueue,
  sleep,
  startSchedulers,
  until,
  useInterruptionRig,
} from "./testing/own-redis";

// The fault of issue 28, in CI's reach: two schedulers (two sets of BullMQ workers over the real
// remediation job module, each with its own database pool and rate bucket, as two processes
// have), the real Google writer against the Google fake, and a Redis of the test's own (never
// the shared one) killed mid-apply and started again EMPTY on the same port. Its sweep (and a
// job queued again with the id Redis no longer knows) must not make a second worker write: the
// fake counts every DELETE and POST it receives, exactly one per step.

const STEPS = 24;
const OWNER = "alice@acme.test";
const LINK = "anyoneWithLink";

const rig = useInterruptionRig();

describe("two schedulers, Redis restarted empty mid-apply and mid-undo", () => {
  it("writes each step exactly once at the fake tenant, and undo puts every link back once", async () => {
    const fixture = buildGoogleFixture();
    const files: TWriteFile[] = [];
    for (let i = 0; i < STEPS; i++) {
      fixture.files.push({
        id: `f-once-${i}`,
        name: `Once ${i}.pdf`,
        mimeType: "application/pdf",
        owners: [{ emailAddress: OWNER }],
        modifiedTime: "2025-04-10T12:00:00.000Z",
        size: "1024",
        permissions: [
          { id: "p-alice", type: "user", role: "owner", emailAddress: OWNER },
          { id: LINK, type: "anyone", role: "reader" },
        ],
      });
      files.push({ id: `f-once-${i}`, driveId: null, ownerEmail: OWNER });
    }
    const sa = generateServiceAccount("admin@acme.test");
    const fake: TFakeGoogle = await startFakeGoogle({
      fixture,
      serviceAccounts: [{ clientEmail: sa.credentials.clientEmail, publicKey: sa.publicKey }],
      authorizedScopes: [...ALL_CONNECTOR_SCOPES, ...GOOGLE_WRITE_ACCESS.map((r) => r.permission)],
    });
    rig.closers.push(() => fake.close());

    const keyHex = randomBytes(32).toString("hex");
    const runtime = {
      encryptionKey: parseEncryptionKey(keyHex),
      publicUrl: "http://localhost",
      webhookAllowPrivateTargets: false,
      sourceEndpoints: { google: fake.endpoints },
    };
    const [org] = await rig.db.insert(organizations).values({ name: "Once", plan: "business" }).returning();
    if (!org) throw new Error("no org");
    const [connector] = await rig.db
      .insert(connectors)
      .values({
        orgId: org.id,
        type: "google_workspace",
        displayName: "Once Google",
        mode: "real",
        writeAccess: true,
        config: { domain: "acme.test" },
        credentialsEnc: encryptSecret(runtime.encryptionKey, JSON.stringify(sa.credentials)),
      })
      .returning();
    if (!connector) throw new Error("no connector");
    const id = await insertPlan(rig.db, {
      orgId: org.id,
      origin: "manual",
      request: { findingIds: [] },
      predicted: { score: 0, grade: "F", scoreDelta: 0, before: { score: 0, grade: "F" } },
      plannedBy: { ...SYSTEM_ACTOR, orgId: org.id },
      steps: files.map((f, i) => ({
        connectorId: connector.id,
        action: "remove_public_link" as const,
        resource: {
          kind: "permission" as const,
          fileId: f.id,
          driveId: null,
          name: `Once ${i}.pdf`,
          ownerEmail: OWNER,
          permissionId: LINK,
        },
        before: { type: "anyone", role: "reader", target: "anyone" },
        after: null,
        reversible: true,
        irreversibleReason: null,
        findingIds: [],
        people: [],
      })),
    });
    await rig.db.update(remediations).set({ status: "APPROVED" }).where(eq(remediations.id, id));

    const { producer, schedulers } = startSchedulers({
      count: 2,
      databaseUrl: rig.tdb.url,
      redisUrl: rig.redis.url,
      db: rig.db,
      runtime,
      closers: rig.closers,
    });

    const statusOf = async () =>
      (await rig.db.select({ s: remediations.status }).from(remediations).where(eq(remediations.id, id)))[0]
        ?.s;
    const requests = (method: string) => fake.requests.filter((r) => r.method === method);
    const perFile = (method: string) => {
      const n = new Map<string, number>();
      for (const r of requests(method)) {
        const file = /^\/drive\/v3\/files\/([^/]+)\/permissions/.exec(r.path)?.[1];
        if (file) n.set(file, (n.get(file) ?? 0) + 1);
      }
      return files.map((f) => n.get(f.id) ?? 0);
    };
    const once = files.map(() => 1);

    // Apply; a quarter of the way through Redis restarts empty, the sweep runs and the job is
    // queued again under the id Redis has forgotten.
    await requestApply(
      rig.db,
      { orgId: org.id, actor: { kind: "session", userId: null, email: "admin@acme.test" }, id },
      { jobs: producer },
    );
    await until("a quarter of the deletes", () => requests("DELETE").length >= STEPS / 4);
    await rig.redis.restartEmpty();
    await enqueueSoon(producer, REMEDIATION_SWEEP_JOB, {});
    await enqueueSoon(producer, REMEDIATION_APPLY_JOB, { remediationId: id }, { jobId: applyJobId(id) });
    await until("APPLIED", async () => (await statusOf()) === "APPLIED");
    // Whatever the second scheduler was running has finished too.
    await idleQueue(producer);
    await sleep(500);
    expect(perFile("DELETE")).toEqual(once);
    const [applied] = await rig.db.select().from(remediations).where(eq(remediations.id, id));
    expect(applied?.stepCounts).toEqual({ APPLIED: STEPS });

    // Undo, under the same fault: every link back, one POST each.
    await rig.db.update(remediations).set({ status: "REVERTING" }).where(eq(remediations.id, id));
    await enqueueSoon(producer, REMEDIATION_UNDO_JOB, { remediationId: id }, { jobId: undoJobId(id) });
    await until(
      "a quarter of the restores",
      () => requests("POST").filter((r) => r.path !== "/token").length >= STEPS / 4,
    );
    await rig.redis.restartEmpty();
    await enqueueSoon(producer, REMEDIATION_SWEEP_JOB, {});
    await enqueueSoon(producer, REMEDIATION_UNDO_JOB, { remediationId: id }, { jobId: undoJobId(id) });
    await until("REVERTED", async () => (await statusOf()) === "REVERTED");
    await idleQueue(producer);
    await sleep(500);
    expect(perFile("POST")).toEqual(once);
    const [reverted] = await rig.db.select().from(remediations).where(eq(remediations.id, id));
    expect(reverted?.stepCounts).toEqual({ REVERTED: STEPS });
    const reader = createSourceWriter({
      type: "google_workspace",
      mode: "real",
      connectorId: connector.id,
      credentials: sa.credentials,
      config: { domain: "acme.test" },
      endpoints: { google: fake.endpoints },
    });
    for (const f of files) expect((await reader.readPermission(f, LINK))?.type).toBe("anyone");
    expect(schedulers).toHaveLength(2);
  }, 120_000);
});
