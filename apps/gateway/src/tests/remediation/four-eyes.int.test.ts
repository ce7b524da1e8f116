import { and, asc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, connectors, events, organizations, remediations, remediationSteps } from "@posture/db";
import { insertPlan, REMEDIATION_UNDO_JOB } from "@posture/remediation";
import { type TTestGateway, useTestGateway } from "../../testing";
import { errorCode, freshIp } from "../helpers";
import { recordingJobs } from "./recording-jobs";

// Issue 28, items 1, 3 and 4 over HTTP: with four eyes on, no single person loosens the settings
// (only an OWNER, signed in), approves their own plan, or starts an undo; an undo with nothing to
// put back is refused before anything moves. Every change is an event. The undo job is recorded
// here, not run (the executor has its own tests).

const { jobs: recording, queued } = recordingJobs();
const gw = useTestGateway({ jobs: recording });

type TPerson = { email: string; role: string | null; credential: string };

/** An organization with four eyes on: its OWNER and two ADMINs, each with a key and a session. */
async function team() {
  const owner = await gw.createActor({ plan: "business", role: "OWNER" });
  await gw.db.db
    .update(organizations)
    .set({ remediationFourEyes: true })
    .where(eq(organizations.id, owner.orgId));
  const admin = await gw.createActor({ orgId: owner.orgId, role: "ADMIN" });
  const second = await gw.createActor({ orgId: owner.orgId, role: "ADMIN" });
  return { orgId: owner.orgId, owner, admin, second };
}
type TMember = Awaited<ReturnType<TTestGateway["createActor"]>>;

const viaKey = (a: TMember, method: string, path: string, body?: unknown) =>
  gw.request(method, path, { key: a.key, ip: freshIp(), ...(body === undefined ? {} : { body }) });
const viaSession = (a: TMember, method: string, path: string, body?: unknown) =>
  gw.request(method, path, { cookie: a.cookie, ip: freshIp(), ...(body === undefined ? {} : { body }) });

const eventsOf = async (orgId: string, type: string) =>
  (
    await gw.db.db
      .select({ data: events.data })
      .from(events)
      .where(and(eq(events.orgId, orgId), eq(events.type, type)))
      .orderBy(asc(events.createdAt), asc(events.id))
  ).map((e) => JSON.parse(e.data) as Record<string, unknown>);

const person = (a: TMember, role: string, credential: "session" | "api_key"): TPerson => ({
  email: a.user.email,
  role,
  credential,
});

/** A remediation of `orgId` in `status`, planned by `plannedBy` (the system by default). */
async function remediation(
  orgId: string,
  o: {
    status?: "PLANNED" | "APPLIED";
    plannedBy?: { userId: string; email: string };
    reversible?: boolean[];
  } = {},
) {
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
    plannedBy: o.plannedBy
      ? { kind: "api_key", userId: o.plannedBy.userId, email: o.plannedBy.email, orgId }
      : { kind: "system", userId: null, email: "system", orgId },
    steps: (o.reversible ?? [true]).map((reversible, i) => ({
      connectorId: c.id,
      action: reversible ? ("remove_public_link" as const) : ("revoke_oauth_grant" as const),
      resource: reversible
        ? {
            kind: "permission" as const,
            fileId: `f${i}`,
            driveId: null,
            name: "Payroll.xlsx",
            ownerEmail: "a@acme.test",
            permissionId: "anyone",
          }
        : {
            kind: "grant" as const,
            grantId: `g${i}`,
            clientId: "app.apps.googleusercontent.com",
            label: "App",
            userEmail: "a@acme.test",
          },
      before: { type: "anyone", role: "reader" },
      after: null,
      reversible,
      irreversibleReason: reversible ? null : "Google cannot re-issue a revoked token",
      findingIds: [],
      people: [],
    })),
  });
  if (o.status === "APPLIED") {
    const now = new Date();
    await db
      .update(remediations)
      .set({ status: "APPLIED", finishedAt: now, undoUntil: new Date(now.getTime() + 30 * 86_400_000) })
      .where(eq(remediations.id, id));
    await db
      .update(remediationSteps)
      .set({ status: "APPLIED", appliedAt: now })
      .where(eq(remediationSteps.remediationId, id));
  }
  return id;
}

describe("four eyes binds the settings (item 1)", () => {
  it("refuses an ADMIN turning four eyes off, raising the cap or letting the partner approve; tightening is open", async () => {
    const t = await team();
    const before = { fourEyes: true, preventionChangeCap: 25, partnerMayApprove: false };
    for (const body of [{ fourEyes: false }, { preventionChangeCap: 10_000 }, { partnerMayApprove: true }]) {
      for (const res of [
        await viaKey(t.admin, "PATCH", "/api/remediation-settings", body),
        await viaSession(t.admin, "PATCH", "/api/remediation-settings", body),
      ]) {
        expect(res.status, JSON.stringify(body)).toBe(403);
        expect(errorCode(res)).toBe("owner_required");
      }
    }
    expect((await viaKey(t.admin, "GET", "/api/remediation-settings")).body).toEqual(before);
    expect(await eventsOf(t.orgId, "remediation.settings.changed")).toEqual([]);

    // Tightening: any ADMIN, announced with weakened: false.
    const lower = await viaKey(t.admin, "PATCH", "/api/remediation-settings", { preventionChangeCap: 5 });
    expect(lower.status).toBe(200);
    expect(lower.body).toEqual({ ...before, preventionChangeCap: 5 });
    expect(await eventsOf(t.orgId, "remediation.settings.changed")).toEqual([
      {
        previous: before,
        current: { ...before, preventionChangeCap: 5 },
        changed: ["preventionChangeCap"],
        weakened: false,
        changedBy: person(t.admin, "ADMIN", "api_key"),
        link: expect.stringMatching(/\/api\/remediation-settings$/),
      },
    ]);
  });

  it("closes the measured bypass: off, approve one's own plan, on — the first request is refused", async () => {
    const t = await team();
    const mine = await remediation(t.orgId, {
      plannedBy: { userId: t.admin.user.id, email: t.admin.user.email },
    });
    expect(errorCode(await viaKey(t.admin, "PATCH", "/api/remediation-settings", { fourEyes: false }))).toBe(
      "owner_required",
    );
    const self = await viaKey(t.admin, "POST", `/api/remediations/${mine}/approve`);
    expect(self.status).toBe(409);
    expect(errorCode(self)).toBe("self_approval");
    // The planner's session is the same person as their key.
    expect(errorCode(await viaSession(t.admin, "POST", `/api/remediations/${mine}/approve`))).toBe(
      "self_approval",
    );
    const [row] = await gw.db.db
      .select({ status: remediations.status })
      .from(remediations)
      .where(eq(remediations.id, mine));
    expect(row?.status).toBe("PLANNED");
  });

  it("lets only an OWNER signed in turn four eyes off, announced with weakened: true", async () => {
    const t = await team();
    const byKey = await viaKey(t.owner, "PATCH", "/api/remediation-settings", { fourEyes: false });
    expect(byKey.status).toBe(403);
    expect(errorCode(byKey)).toBe("session_required");
    const off = await viaSession(t.owner, "PATCH", "/api/remediation-settings", {
      fourEyes: false,
      preventionChangeCap: 50,
    });
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ fourEyes: false, preventionChangeCap: 50, partnerMayApprove: false });
    // Four eyes off: an ADMIN's changes are theirs to make again, and still announced.
    const on = await viaKey(t.admin, "PATCH", "/api/remediation-settings", { fourEyes: true });
    expect(on.status).toBe(200);
    expect(
      (await eventsOf(t.orgId, "remediation.settings.changed")).map((e) => ({
        changed: e.changed,
        weakened: e.weakened,
        changedBy: e.changedBy,
      })),
    ).toEqual([
      {
        changed: ["fourEyes", "preventionChangeCap"],
        weakened: true,
        changedBy: person(t.owner, "OWNER", "session"),
      },
      { changed: ["fourEyes"], weakened: false, changedBy: person(t.admin, "ADMIN", "api_key") },
    ]);
    const audit = await gw.db.db
      .select({ metadata: auditLog.metadata })
      .from(auditLog)
      .where(and(eq(auditLog.orgId, t.orgId), eq(auditLog.action, "REMEDIATION_SETTINGS_CHANGED")))
      .orderBy(asc(auditLog.createdAt));
    expect(audit.map((a) => a.metadata)).toEqual([
      {
        fourEyes: { from: true, to: false },
        preventionChangeCap: { from: 25, to: 50 },
        weakened: true,
        role: "OWNER",
      },
      { fourEyes: { from: false, to: true }, weakened: false, role: "ADMIN" },
    ]);
  });
});

describe("four eyes binds undo (items 3 and 4)", () => {
  it("records one ADMIN's undo, refuses the same person again, and a second ADMIN starts it", async () => {
    const t = await team();
    const id = await remediation(t.orgId, { status: "APPLIED", reversible: [true, true, false] });
    queued.length = 0;

    const first = await viaKey(t.admin, "POST", `/api/remediations/${id}/undo`);
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({
      id,
      status: "APPLIED",
      undoRequest: {
        requestedBy: { email: t.admin.user.email, role: "ADMIN", kind: "api_key" },
        confirmedBy: null,
        confirmedAt: null,
      },
    });
    expect(queued).toEqual([]);
    expect(await eventsOf(t.orgId, "remediation.undo.requested")).toEqual([
      {
        remediationId: id,
        status: "APPLIED",
        requestedBy: person(t.admin, "ADMIN", "api_key"),
        reversibleSteps: 2,
        link: expect.stringMatching(new RegExp(`/api/remediations/${id}$`)),
      },
    ]);

    // The same person through their session: one person still.
    const again = await viaSession(t.admin, "POST", `/api/remediations/${id}/undo`);
    expect(again.status).toBe(409);
    expect(errorCode(again)).toBe("self_approval");
    expect(queued).toEqual([]);

    const second = await viaSession(t.second, "POST", `/api/remediations/${id}/undo`);
    expect(second.status).toBe(202);
    expect(second.body).toMatchObject({
      status: "REVERTING",
      undoRequest: {
        requestedBy: { email: t.admin.user.email },
        confirmedBy: { email: t.second.user.email, role: "ADMIN", kind: "session" },
      },
    });
    expect(queued).toEqual([{ name: REMEDIATION_UNDO_JOB, jobId: `remediation-undo-${id}` }]);
    expect(await eventsOf(t.orgId, "remediation.reverting")).toEqual([
      {
        remediationId: id,
        status: "REVERTING",
        requestedBy: person(t.admin, "ADMIN", "api_key"),
        confirmedBy: person(t.second, "ADMIN", "session"),
        reversibleSteps: 2,
        link: expect.stringMatching(new RegExp(`/api/remediations/${id}$`)),
      },
    ]);
    const actions = await gw.db.db
      .select({ action: auditLog.action })
      .from(auditLog)
      .where(and(eq(auditLog.orgId, t.orgId), eq(auditLog.target, id)))
      .orderBy(asc(auditLog.createdAt));
    expect(actions.map((a) => a.action)).toEqual(["REMEDIATION_UNDO_REQUESTED", "REMEDIATION_UNDO_STARTED"]);
  });

  it("binds an OWNER too: the OWNER's undo waits for a different person", async () => {
    const t = await team();
    const id = await remediation(t.orgId, { status: "APPLIED" });
    queued.length = 0;
    const mine = await viaSession(t.owner, "POST", `/api/remediations/${id}/undo`);
    expect(mine.status).toBe(202);
    expect(mine.body).toMatchObject({ status: "APPLIED", undoRequest: { confirmedBy: null } });
    expect(errorCode(await viaKey(t.owner, "POST", `/api/remediations/${id}/undo`))).toBe("self_approval");
    expect(queued).toEqual([]);
    const confirmed = await viaKey(t.admin, "POST", `/api/remediations/${id}/undo`);
    expect(confirmed.body).toMatchObject({ status: "REVERTING" });
    expect(queued).toEqual([{ name: REMEDIATION_UNDO_JOB, jobId: `remediation-undo-${id}` }]);
  });

  it("starts at once with four eyes off, announced with confirmedBy null", async () => {
    const a = await gw.createActor({ plan: "business", role: "ADMIN" });
    const id = await remediation(a.orgId, { status: "APPLIED" });
    const res = await viaKey(a, "POST", `/api/remediations/${id}/undo`);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: "REVERTING", undoRequest: { confirmedBy: null } });
    expect(await eventsOf(a.orgId, "remediation.reverting")).toMatchObject([
      {
        remediationId: id,
        requestedBy: person(a, "ADMIN", "api_key"),
        confirmedBy: null,
        reversibleSteps: 1,
      },
    ]);
  });

  it("refuses an undo of irreversible steps only with 409 nothing_to_undo, before anything moves", async () => {
    const a = await gw.createActor({ plan: "business", role: "ADMIN" });
    const id = await remediation(a.orgId, { status: "APPLIED", reversible: [false, false] });
    queued.length = 0;
    const res = await viaKey(a, "POST", `/api/remediations/${id}/undo`);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: "nothing_to_undo", irreversible: 2 });
    const [row] = await gw.db.db
      .select({ status: remediations.status, undoRequest: remediations.undoRequest })
      .from(remediations)
      .where(eq(remediations.id, id));
    expect(row).toEqual({ status: "APPLIED", undoRequest: null });
    expect(queued).toEqual([]);
    expect(await eventsOf(a.orgId, "remediation.reverting")).toEqual([]);
  });
});

describe("partners and keys do not make one person two (four eyes)", () => {
  it("refuses a person who planned in the client approving as its partner", async () => {
    const msp = await gw.createActor({ plan: "enterprise", isPartner: true, role: "ADMIN" });
    const client = await gw.createOrg({ plan: "business", managedByOrgId: msp.orgId });
    await gw.db.db
      .update(organizations)
      .set({ remediationFourEyes: true, partnerMayApprove: true })
      .where(eq(organizations.id, client.id));
    const { partnerAccess, memberships } = await import("@posture/db");
    await gw.db.db
      .insert(partnerAccess)
      .values({ clientOrgId: client.id, partnerOrgId: msp.orgId })
      .onConflictDoNothing();
    // The partner's admin is also an ADMIN of the client: one person, two organizations.
    await gw.db.db.insert(memberships).values({ userId: msp.user.id, orgId: client.id, role: "ADMIN" });
    const id = await remediation(client.id, { plannedBy: { userId: msp.user.id, email: msp.user.email } });
    const res = await viaKey(msp, "POST", `/api/remediations/${id}/approve`);
    expect(res.status).toBe(409);
    expect(errorCode(res)).toBe("self_approval");
  });
});
