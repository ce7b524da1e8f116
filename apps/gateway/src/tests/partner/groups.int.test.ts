import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog } from "@posture/db";
import { type TTestGateway, type TTestResponse, useTestGateway } from "../../testing";
import { errorCode, freshIp } from "../helpers";

// Tenant groups (issue 17, item 2): CRUD, members limited to managed clients, the portfolio by
// group, another partner's group indistinguishable from an unknown one, roles, strict input.

type TActor = Awaited<ReturnType<TTestGateway["createActor"]>>;
type TGroup = {
  id: string;
  name: string;
  description: string | null;
  clientCount: number;
  clients: Array<{ orgId: string; name: string }>;
};
type TPortfolio = {
  totals: { clients: number };
  clients: Array<{ orgId: string; name: string; drift: { open: number; critical: number } }>;
};

const gw = useTestGateway();
let msp: TActor;
let mspMember: TActor;
let rival: TActor;
let alpha = "";
let beta = "";
let gamma = "";
let foreign = "";

const call = (a: TActor, method: string, path: string, body?: unknown) =>
  gw.request(method, path, { cookie: a.cookie, ip: freshIp(), ...(body === undefined ? {} : { body }) });
const withKey = (a: TActor, method: string, path: string, body?: unknown) =>
  gw.request(method, path, { key: a.key, ip: freshIp(), ...(body === undefined ? {} : { body }) });
const group = (res: TTestResponse) => res.body as TGroup;

beforeAll(async () => {
  msp = await gw.createActor({ plan: "enterprise", isPartner: true });
  mspMember = await gw.createActor({ orgId: msp.orgId, role: "member" });
  rival = await gw.createActor({ plan: "enterprise", isPartner: true });
  alpha = (await gw.createOrg({ name: "Alpha Ltd", managedByOrgId: msp.orgId })).id;
  beta = (await gw.createOrg({ name: "Beta GmbH", managedByOrgId: msp.orgId })).id;
  gamma = (await gw.createOrg({ name: "Gamma Inc", managedByOrgId: msp.orgId })).id;
  foreign = (await gw.createOrg({ name: "Rival Client", managedByOrgId: rival.orgId })).id;
});

describe("partner groups", () => {
  it("creates, reads, renames and lists a group; audited", async () => {
    const created = await call(msp, "POST", "/api/partner/groups", {
      name: "EU clients",
      description: "Served from Frankfurt",
      clientOrgIds: [beta, alpha],
    });
    expect(created.status).toBe(201);
    const g = group(created);
    expect(g).toMatchObject({ name: "EU clients", description: "Served from Frankfurt", clientCount: 2 });
    expect(g.clients).toEqual([
      { orgId: alpha, name: "Alpha Ltd" },
      { orgId: beta, name: "Beta GmbH" },
    ]);

    // The API key reads it the same way.
    const read = await withKey(msp, "GET", `/api/partner/groups/${g.id}`);
    expect(read.status).toBe(200);
    expect(group(read).clients.map((c) => c.orgId)).toEqual([alpha, beta]);

    const renamed = await call(msp, "PATCH", `/api/partner/groups/${g.id}`, {
      name: "Europe",
      description: null,
    });
    expect(renamed.status).toBe(200);
    expect(group(renamed)).toMatchObject({ name: "Europe", description: null, clientCount: 2 });

    const other = await call(msp, "POST", "/api/partner/groups", { name: "Empty" });
    expect(other.status).toBe(201);
    const list = await call(mspMember, "GET", "/api/partner/groups?limit=1");
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ total: 2, limit: 1, offset: 0, nextOffset: 1 });
    expect((list.body as { groups: TGroup[] }).groups.map((x) => x.name)).toEqual(["Empty"]);

    const audited = await gw.db.db
      .select({ target: auditLog.target })
      .from(auditLog)
      .where(and(eq(auditLog.orgId, msp.orgId), eq(auditLog.action, "PARTNER_GROUP_CHANGED")));
    expect(audited.map((r) => r.target)).toEqual(expect.arrayContaining([g.id, group(other).id]));
  });

  it("sets members to managed clients only: another partner's or an unknown client is 404, nothing changes", async () => {
    const g = group(
      await call(msp, "POST", "/api/partner/groups", { name: "Members", clientOrgIds: [alpha] }),
    );
    const set = await call(msp, "PUT", `/api/partner/groups/${g.id}/clients`, {
      clientOrgIds: [gamma, beta],
    });
    expect(set.status).toBe(200);
    expect(group(set).clients.map((c) => c.name)).toEqual(["Beta GmbH", "Gamma Inc"]);

    for (const ids of [[alpha, foreign], ["org_does_not_exist"]]) {
      const res = await call(msp, "PUT", `/api/partner/groups/${g.id}/clients`, { clientOrgIds: ids });
      expect(res.status).toBe(404);
      expect(errorCode(res)).toBe("not_found");
    }
    expect(group(await call(msp, "GET", `/api/partner/groups/${g.id}`)).clientCount).toBe(2);

    const emptied = await call(msp, "PUT", `/api/partner/groups/${g.id}/clients`, { clientOrgIds: [] });
    expect(group(emptied).clients).toEqual([]);
  });

  it("filters the portfolio by group; an unknown or another partner's group is 404", async () => {
    const g = group(
      await call(msp, "POST", "/api/partner/groups", { name: "Just Gamma", clientOrgIds: [gamma] }),
    );
    const all = await withKey(msp, "GET", "/api/partner/reports/portfolio");
    expect((all.body as TPortfolio).clients.map((c) => c.name)).toEqual([
      "Alpha Ltd",
      "Beta GmbH",
      "Gamma Inc",
    ]);
    const only = await withKey(msp, "GET", `/api/partner/reports/portfolio?groupId=${g.id}`);
    expect(only.status).toBe(200);
    const p = only.body as TPortfolio;
    expect(p.totals.clients).toBe(1);
    expect(p.clients).toEqual([expect.objectContaining({ orgId: gamma, drift: { open: 0, critical: 0 } })]);

    const rivalGroup = group(await call(rival, "POST", "/api/partner/groups", { name: "Theirs" }));
    for (const id of [rivalGroup.id, "grp_unknown"]) {
      const res = await withKey(msp, "GET", `/api/partner/reports/portfolio?groupId=${id}`);
      expect(res.status).toBe(404);
      expect(errorCode(res)).toBe("not_found");
    }
  });

  it("another partner's group is 404 on every operation, like an unknown id", async () => {
    const mine = group(
      await call(msp, "POST", "/api/partner/groups", { name: "Private", clientOrgIds: [alpha] }),
    );
    const attempts: Array<[string, string, unknown?]> = [
      ["GET", `/api/partner/groups/${mine.id}`],
      ["PATCH", `/api/partner/groups/${mine.id}`, { name: "Stolen" }],
      ["PUT", `/api/partner/groups/${mine.id}/clients`, { clientOrgIds: [] }],
      ["DELETE", `/api/partner/groups/${mine.id}`],
    ];
    for (const [method, path, body] of attempts) {
      const theirs = await call(rival, method, path, body);
      const unknown = await call(rival, method, path.replace(mine.id, "grp_nope"), body);
      expect([theirs.status, unknown.status]).toEqual([404, 404]);
      expect(theirs.body).toEqual(unknown.body);
    }
    // A rival cannot put the partner's client into its own group either.
    const rg = group(await call(rival, "POST", "/api/partner/groups", { name: "Grab" }));
    expect(
      (await call(rival, "PUT", `/api/partner/groups/${rg.id}/clients`, { clientOrgIds: [alpha] })).status,
    ).toBe(404);
    expect(group(await call(msp, "GET", `/api/partner/groups/${mine.id}`)).name).toBe("Private");
  });

  it("deletes a group", async () => {
    const g = group(await call(msp, "POST", "/api/partner/groups", { name: "Short-lived" }));
    const del = await call(msp, "DELETE", `/api/partner/groups/${g.id}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ deleted: true });
    expect((await call(msp, "GET", `/api/partner/groups/${g.id}`)).status).toBe(404);
  });

  it("roles and credentials: members read, ADMIN+ write; non-partners 403", async () => {
    const res = await call(mspMember, "POST", "/api/partner/groups", { name: "Nope" });
    expect(res.status).toBe(403);
    expect(errorCode(res)).toBe("forbidden");
    expect((await call(mspMember, "GET", "/api/partner/groups")).status).toBe(200);
    const plain = await gw.createActor({ plan: "enterprise" });
    expect(errorCode(await call(plain, "GET", "/api/partner/groups"))).toBe("partner_required");
    const small = await gw.createActor({ plan: "business", isPartner: true });
    expect((await call(small, "GET", "/api/partner/groups")).status).toBe(402);
  });

  it("bad input is 400 invalid_input; a name in use is 409", async () => {
    const bad: unknown[] = [
      {},
      { name: "" },
      { name: "x".repeat(121) },
      { name: "ok", extra: true },
      { name: "ok", clientOrgIds: "abc" },
      { name: "ok", clientOrgIds: [alpha, alpha] },
      { name: "ok", description: 5 },
    ];
    for (const body of bad) {
      const res = await call(msp, "POST", "/api/partner/groups", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(errorCode(res)).toBe("invalid_input");
    }
    expect((await call(msp, "GET", "/api/partner/groups?limit=0")).status).toBe(400);
    expect((await call(msp, "GET", "/api/partner/groups?offset=-1")).status).toBe(400);
    await call(msp, "POST", "/api/partner/groups", { name: "Taken" });
    const dup = await call(msp, "POST", "/api/partner/groups", { name: "Taken" });
    expect(dup.status).toBe(409);
    expect(errorCode(dup)).toBe("conflict");
  });
});
