import { beforeAll, describe, expect, it } from "vitest";
import { useTestGateway } from "../../testing";
import { activeOrganization, requester } from "./helpers";

const gw = useTestGateway();
let req: ReturnType<typeof requester>;
beforeAll(async () => {
  req = requester(gw);
});

type TEntry = { id: string; action: string; target: string; userEmail: string; createdAt: string };
type TPage = { entries: TEntry[]; page: number; limit: number; total: number; totalPages: number };

const audit = async (key: string, query = "") => {
  const res = await req("GET", `/api/audit${query}`, { key });
  return { res, page: res.body as TPage };
};

describe("GET /api/audit", () => {
  it("records sign-in, failed sign-in, key creation, revocation and sign-out, newest first", async () => {
    const owner = await activeOrganization(gw);
    const { res, page } = await audit(owner.key);
    expect(res.status).toBe(200);
    expect(page.entries.map((e) => e.action)).toEqual([
      "SIGN_OUT",
      "API_KEY_REVOKED",
      "API_KEY_CREATED",
      "SIGN_IN",
      "SIGN_IN_FAILED",
    ]);
    expect(page.entries.every((e) => e.userEmail === owner.user.email)).toBe(true);
    expect(page.entries.find((e) => e.action === "API_KEY_REVOKED")?.target).toContain(owner.keyId);
    expect(page).toMatchObject({ page: 1, limit: 50, total: 5, totalPages: 1 });
    const times = page.entries.map((e) => new Date(e.createdAt).getTime());
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it("pages with page and limit, and filters by action", async () => {
    const owner = await activeOrganization(gw);
    const all = (await audit(owner.key)).page.entries.map((e) => e.id);

    const p1 = await audit(owner.key, "?limit=2");
    const p3 = await audit(owner.key, "?page=3&limit=2");
    expect(p1.page).toMatchObject({ page: 1, limit: 2, total: 5, totalPages: 3 });
    expect(p1.page.entries.map((e) => e.id)).toEqual(all.slice(0, 2));
    expect(p3.page.entries.map((e) => e.id)).toEqual(all.slice(4));
    expect((await audit(owner.key, "?page=4&limit=2")).page.entries).toEqual([]);

    const filtered = await audit(owner.key, "?action=SIGN_IN");
    expect(filtered.page).toMatchObject({ total: 1, totalPages: 1 });
    expect(filtered.page.entries.map((e) => e.action)).toEqual(["SIGN_IN"]);
  });

  it("validates page, limit and action", async () => {
    const owner = await gw.createActor({ role: "OWNER" });
    for (const query of ["?limit=101", "?limit=0", "?page=0", "?page=x", "?action=NOT_AN_ACTION"]) {
      const { res } = await audit(owner.key, query);
      expect(res.status, query).toBe(400);
      expect(res.body).toMatchObject({ error: "invalid_input", details: expect.any(Array) });
    }
    expect((await audit(owner.key, "?limit=100")).res.status).toBe(200);
  });

  it("is ADMIN+ only and shows only the caller's organization", async () => {
    const owner = await activeOrganization(gw);
    const admin = await gw.createUser(owner.orgId, "ADMIN");
    const adminKey = await gw.createApiKey(owner.orgId, admin.id);
    expect((await audit(adminKey.key)).page.total).toBe(5);

    const member = await gw.createUser(owner.orgId, "member");
    const memberKey = await gw.createApiKey(owner.orgId, member.id);
    expect((await audit(memberKey.key)).res).toMatchObject({ status: 403, body: { error: "forbidden" } });

    const stranger = await gw.createActor({ role: "OWNER" });
    expect((await audit(stranger.key)).page).toMatchObject({ total: 0, entries: [] });
  });
});
