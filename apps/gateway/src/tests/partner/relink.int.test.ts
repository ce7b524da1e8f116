import { and, asc, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrganization, setOrganizationManager } from "@posture/account";
import { auditLog, organizations, partnerAccess } from "@posture/db";
import { startTestGateway, type TTestGateway } from "../../testing";
import { freshIp } from "../helpers";

// A client's consent is the client's (issue 28, item 9): moving it to another partner, or out of
// management and back, never undoes a withdrawal; the move is audited in the client and in both
// partners; and a link never crosses between sandbox and real organizations.

type TActor = Awaited<ReturnType<TTestGateway["createActor"]>>;
let gw: TTestGateway;
let first: TActor; // partner the clients start with
let second: TActor; // partner they are moved to

beforeAll(async () => {
  gw = await startTestGateway();
  first = await gw.createActor({ plan: "enterprise", isPartner: true });
  second = await gw.createActor({ plan: "enterprise", isPartner: true });
});
afterAll(async () => {
  await gw.close();
});

const call = (method: string, path: string, who: { key?: string; cookie?: string }) =>
  gw.request(method, path, { ...who, ip: freshIp() });

/** A client of `first` made as the operator makes one, with its OWNER. */
async function client(name: string) {
  const org = await createOrganization(gw.db.db, { name, plan: "business", managedByOrgId: first.orgId });
  return gw.createActor({ orgId: org.id });
}

async function withdraw(owner: TActor) {
  const res = await call("DELETE", "/api/partner-access", { key: owner.key });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ access: "withdrawn" });
}

const accessOf = async (owner: TActor) => (await call("GET", "/api/partner-access", { key: owner.key })).body;

/** What `partner` may read of the client now. */
async function reads(partner: TActor, clientId: string) {
  const findings = await call("GET", `/api/partner/clients/${clientId}/findings`, { key: partner.key });
  const portfolio = await call("GET", "/api/partner/reports/portfolio", { key: partner.key });
  const listed = (portfolio.body as { clients: Array<{ orgId: string }> }).clients.some(
    (c) => c.orgId === clientId,
  );
  return { findings: findings.status, listed };
}

/** The CLI's org:set-manager: the change, then every server's read cache told of it (main.ts). */
async function relink(change: Parameters<typeof setOrganizationManager>[1]) {
  const done = await setOrganizationManager(gw.db.db, change);
  await gw.publishDataChanges();
  return done;
}

const linkRows = (orgId: string) =>
  gw.db.db
    .select({ target: auditLog.target, userEmail: auditLog.userEmail, metadata: auditLog.metadata })
    .from(auditLog)
    .where(and(eq(auditLog.orgId, orgId), eq(auditLog.action, "PARTNER_LINK_CHANGED")))
    .orderBy(asc(auditLog.seq));

describe("moving a client that withdrew its partner's access", () => {
  it("keeps it withdrawn for the new partner, and audits the move in all three trails", async () => {
    const acme = await client("Acme Relink");
    await withdraw(acme);

    const moved = await relink({ orgId: acme.orgId, managedByOrgId: second.orgId });
    expect(moved).toEqual({
      id: acme.orgId,
      managedByOrgId: second.orgId,
      access: "withdrawn",
      changed: true,
    });
    expect(await accessOf(acme)).toMatchObject({
      partner: { orgId: second.orgId },
      access: "withdrawn",
      withdrawnAt: expect.any(String) as string,
    });
    expect(await reads(second, acme.orgId)).toEqual({ findings: 404, listed: false });
    expect(await reads(first, acme.orgId)).toEqual({ findings: 404, listed: false });

    const [made, move] = await linkRows(acme.orgId);
    expect(made).toMatchObject({
      target: first.orgId,
      userEmail: "system",
      metadata: { fromPartnerOrgId: null, toPartnerOrgId: first.orgId, access: "granted" },
    });
    const moveMetadata = {
      clientOrgId: acme.orgId,
      clientName: "Acme Relink",
      fromPartnerOrgId: first.orgId,
      toPartnerOrgId: second.orgId,
      access: "withdrawn",
    };
    expect(move).toMatchObject({ target: second.orgId, userEmail: "system", metadata: moveMetadata });
    expect(
      (await linkRows(first.orgId)).filter((r) => r.target === acme.orgId).map((r) => r.metadata),
    ).toEqual([
      expect.objectContaining({ toPartnerOrgId: first.orgId, access: "granted" }),
      expect.objectContaining(moveMetadata),
    ]);
    expect(
      (await linkRows(second.orgId)).filter((r) => r.target === acme.orgId).map((r) => r.metadata),
    ).toEqual([expect.objectContaining(moveMetadata)]);

    // The client's OWNER, and nobody else, grants the new partner access.
    const granted = await call("PUT", "/api/partner-access", { key: acme.key });
    expect(granted.body).toMatchObject({ partner: { orgId: second.orgId }, access: "granted" });
    expect(await reads(second, acme.orgId)).toEqual({ findings: 200, listed: true });
  });

  it("keeps it withdrawn through SQL written by hand (the trigger), and through an unlink and a re-link", async () => {
    const globex = await client("Globex Relink");
    await withdraw(globex);
    await gw.db.db
      .update(organizations)
      .set({ managedByOrgId: second.orgId })
      .where(eq(organizations.id, globex.orgId));
    await gw.publishDataChanges();
    expect(await accessOf(globex)).toMatchObject({ partner: { orgId: second.orgId }, access: "withdrawn" });

    const unlinked = await relink({ orgId: globex.orgId, managedByOrgId: null });
    expect(unlinked).toEqual({ id: globex.orgId, managedByOrgId: null, access: null, changed: true });
    expect(await accessOf(globex)).toEqual({
      partner: null,
      access: null,
      grantedAt: null,
      withdrawnAt: null,
    });
    await relink({ orgId: globex.orgId, managedByOrgId: first.orgId });
    expect(await accessOf(globex)).toMatchObject({ partner: { orgId: first.orgId }, access: "withdrawn" });
    expect(await reads(first, globex.orgId)).toEqual({ findings: 404, listed: false });
  });
});

describe("moving a client that had not withdrawn", () => {
  it("gives the new partner the operator's grant and takes the old one's away; the same move twice records once", async () => {
    const initech = await client("Initech Relink");
    expect(await reads(first, initech.orgId)).toEqual({ findings: 200, listed: true });
    const moved = await relink({
      orgId: initech.orgId,
      managedByOrgId: second.orgId,
    });
    expect(moved.access).toBe("granted");
    expect(await reads(second, initech.orgId)).toEqual({ findings: 200, listed: true });
    expect(await reads(first, initech.orgId)).toEqual({ findings: 404, listed: false });
    const again = await relink({
      orgId: initech.orgId,
      managedByOrgId: second.orgId,
    });
    expect(again).toEqual({
      id: initech.orgId,
      managedByOrgId: second.orgId,
      access: "granted",
      changed: false,
    });
    expect(await linkRows(initech.orgId)).toHaveLength(2);
  });
});

describe("sandbox and real organizations never manage each other", () => {
  it("refuses a real client of a sandbox partner and a sandbox client of a real partner, in the service and the database", async () => {
    const sandboxPartner = await createOrganization(gw.db.db, {
      name: "Sandbox MSP",
      plan: "enterprise",
      isPartner: true,
      isSandbox: true,
    });
    const refusedReal = createOrganization(gw.db.db, {
      name: "Real Client",
      plan: "business",
      managedByOrgId: sandboxPartner.id,
    });
    await expect(refusedReal).rejects.toMatchObject({
      code: "invalid_input",
      extra: {
        details: [
          { path: "managedByOrgId", message: "a sandbox partner manages sandbox organizations only" },
        ],
      },
    });
    const refusedSandbox = createOrganization(gw.db.db, {
      name: "Sandbox Client",
      plan: "business",
      isSandbox: true,
      managedByOrgId: first.orgId,
    });
    await expect(refusedSandbox).rejects.toMatchObject({
      code: "invalid_input",
      extra: {
        details: [{ path: "managedByOrgId", message: "a sandbox is managed by a sandbox partner only" }],
      },
    });
    const real = await gw.createOrg({ plan: "business", name: "Real Unmanaged" });
    await expect(
      setOrganizationManager(gw.db.db, { orgId: real.id, managedByOrgId: sandboxPartner.id }),
    ).rejects.toMatchObject({ code: "invalid_input" });
    // Whoever writes the column: the database refuses the crossing too.
    const byHand = gw.db.db.execute(
      sql`UPDATE organizations SET managed_by_org_id = ${sandboxPartner.id} WHERE id = ${real.id}`,
    );
    await expect(byHand).rejects.toMatchObject({ cause: { code: "23514" } });
    const [row] = await gw.db.db
      .select({ managedBy: organizations.managedByOrgId })
      .from(organizations)
      .where(eq(organizations.id, real.id));
    expect(row?.managedBy).toBeNull();
    const consent = await gw.db.db.select().from(partnerAccess).where(eq(partnerAccess.clientOrgId, real.id));
    expect(consent).toEqual([]);
  });
});
