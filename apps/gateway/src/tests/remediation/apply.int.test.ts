import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { connectors, remediations, remediationSteps } from "@posture/db";
import { insertPlan, REMEDIATION_APPLY_JOB, REMEDIATION_UNDO_JOB } from "@posture/remediation";
import { useTestGateway } from "../../testing";
import { recordingJobs } from "./recording-jobs";

// POST /api/remediations/{id}/apply and /undo over HTTP: 202 and the job queued (recorded here,
// not run: the executor has its own tests), 409 invalid_transition for every other move, an
// Idempotency-Key replayed, another organization's id 404, the plan and role gates.

const { jobs: recording, queued } = recordingJobs();
const gw = useTestGateway({ jobs: recording });

async function plan(orgId: string, status: "APPROVED" | "PLANNED" | "APPLIED" = "APPROVED") {
  const db = gw.db.db;
  const [c] = await db
    .insert(connectors)
    .values({ orgId, type: "google_workspace", displayName: "Google", mode: "real", writeAccess: true })
    .returning();
  if (!c) throw new Error("no connector");
  const id = await insertPlan(db, {
    orgId,
    origin: "manual",
    request: { findingIds: [] },
    predicted: { score: 40, grade: "F", scoreDelta: 5, before: { score: 35, grade: "F" } },
    plannedBy: { kind: "system", userId: null, email: "system", orgId },
    steps: [
      {
        connectorId: c.id,
        action: "remove_public_link",
        resource: {
          kind: "permission",
          fileId: "f1",
          driveId: null,
          name: "Payroll.xlsx",
          ownerEmail: "a@acme.test",
          permissionId: "anyone",
        },
        before: { type: "anyone", role: "reader", target: "anyone" },
        after: null,
        reversible: true,
        irreversibleReason: null,
        findingIds: [],
        people: [],
      },
    ],
  });
  const now = new Date();
  await db
    .update(remediations)
    .set({
      status,
      ...(status === "APPLIED"
        ? { finishedAt: now, undoUntil: new Date(now.getTime() + 30 * 86_400_000) }
        : {}),
    })
    .where(eq(remediations.id, id));
  // An applied plan's step was applied (an undo puts back applied steps only).
  if (status === "APPLIED")
    await db
      .update(remediationSteps)
      .set({ status: "APPLIED" })
      .where(eq(remediationSteps.remediationId, id));
  return id;
}

describe("POST /api/remediations/{id}/apply and /undo", () => {
  it("answers 202 APPLYING with the job queued, replays an Idempotency-Key, and refuses a second apply", async () => {
    const a = await gw.createActor({ plan: "business", role: "ADMIN" });
    const id = await plan(a.orgId);
    const headers = { "Idempotency-Key": "apply-once" };
    const first = await gw.request("POST", `/api/remediations/${id}/apply`, { key: a.key, headers });
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ id, status: "APPLYING", steps: [{ status: "PENDING" }] });
    expect(queued).toContainEqual({ name: REMEDIATION_APPLY_JOB, jobId: `remediation-apply-${id}` });
    const [row] = await gw.db.db
      .select({ applyKey: remediations.applyKey })
      .from(remediations)
      .where(eq(remediations.id, id));
    expect(row?.applyKey).toBe("apply-once");

    const replay = await gw.request("POST", `/api/remediations/${id}/apply`, { key: a.key, headers });
    expect(replay.status).toBe(202);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(replay.body).toEqual(first.body);

    const again = await gw.request("POST", `/api/remediations/${id}/apply`, { cookie: a.cookie });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: "invalid_transition" });
  });

  it("refuses PLANNED with 409, another organization's id with 404, and a member or a free plan", async () => {
    const a = await gw.createActor({ plan: "business", role: "ADMIN" });
    const planned = await plan(a.orgId, "PLANNED");
    const res = await gw.request("POST", `/api/remediations/${planned}/apply`, { key: a.key });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: "invalid_transition" });

    const other = await gw.createActor({ plan: "business", role: "ADMIN" });
    expect((await gw.request("POST", `/api/remediations/${planned}/apply`, { key: other.key })).status).toBe(
      404,
    );
    const member = await gw.createActor({ plan: "business", role: "member", orgId: a.orgId });
    expect((await gw.request("POST", `/api/remediations/${planned}/apply`, { key: member.key })).status).toBe(
      403,
    );
    const free = await gw.createActor({ plan: "free", role: "OWNER" });
    expect((await gw.request("POST", `/api/remediations/${planned}/apply`, { key: free.key })).status).toBe(
      402,
    );
  });

  it("undoes an APPLIED remediation (202 REVERTING) and refuses one that is not", async () => {
    const a = await gw.createActor({ plan: "business", role: "ADMIN" });
    const applied = await plan(a.orgId, "APPLIED");
    const res = await gw.request("POST", `/api/remediations/${applied}/undo`, { key: a.key });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ id: applied, status: "REVERTING" });
    expect(queued).toContainEqual({ name: REMEDIATION_UNDO_JOB, jobId: `remediation-undo-${applied}` });
    const approved = await plan(a.orgId);
    const refused = await gw.request("POST", `/api/remediations/${approved}/undo`, { cookie: a.cookie });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: "invalid_transition" });
  });
});
