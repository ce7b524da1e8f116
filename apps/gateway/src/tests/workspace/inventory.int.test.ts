import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { useTestGateway } from "../../testing";
import { freshIp } from "../helpers";
import { body, client, code, scannedOrg } from "./harness";

type TPage = {
  type: string;
  rows: Array<Record<string, unknown>>;
  total: number;
  limit: number;
  offset: number;
  nextOffset: number | null;
  totalEstimated: boolean;
  metrics: Record<string, number>;
};

const gw = useTestGateway();
let org: Awaited<ReturnType<typeof scannedOrg>>;
beforeAll(async () => {
  org = await scannedOrg(gw);
});

describe("GET /api/inventory", () => {
  it("lists users by default with the reviewer's fields and identity metrics", async () => {
    const page = body<TPage>(await org.c.get("/api/inventory"));
    expect(page.type).toBe("users");
    expect(page.limit).toBe(50);
    expect(page.offset).toBe(0);
    expect(page.total).toBeGreaterThan(0);
    expect(page.rows.length).toBe(Math.min(50, page.total));
    const u = page.rows[0] ?? {};
    expect(Object.keys(u)).toEqual(
      expect.arrayContaining([
        "id",
        "email",
        "name",
        "isAdmin",
        "mfaEnabled",
        "status",
        "lastSignInAt",
        "dormant",
        "externalSharesOwned",
      ]),
    );
    expect(page.metrics.total).toBe(page.total);
    expect(page.metrics.admins).toBeGreaterThan(0);
    expect(page.metrics.mfaCoveragePct).toBeGreaterThan(0);
    expect(page.metrics.mfaCoveragePct).toBeLessThanOrEqual(100);
    // E-mail order, and external shares tallied for owners.
    const emails = page.rows.map((r) => String(r.email));
    expect([...emails].sort()).toEqual(emails);
    const all = body<TPage>(await org.c.get("/api/inventory?type=users&limit=200"));
    expect(all.rows.some((r) => Number(r.externalSharesOwned) > 0)).toBe(true);
  });

  it("lists files and shared drives with their metrics", async () => {
    const files = body<TPage>(await org.c.get("/api/inventory?type=files&limit=200"));
    expect(files.total).toBe(400);
    expect(files.metrics.total).toBe(400);
    const m = files.metrics;
    expect((m.public ?? 0) + (m.external ?? 0) + (m.internal ?? 0) + (m.private ?? 0)).toBe(400);
    expect(files.metrics.public).toBeGreaterThan(0);
    const f = files.rows.find((r) => r.sharing === "public") ?? {};
    expect(f).toMatchObject({ sharing: "public" });
    expect(typeof f.ownerEmail).toBe("string");
    expect(["high", "medium", "low"]).toContain(f.sensitivity);
    const modified = files.rows.map((r) => String(r.modifiedAt));
    expect([...modified].sort().reverse()).toEqual(modified);

    const drives = body<TPage>(await org.c.get("/api/inventory?type=shared-drives"));
    expect(drives.total).toBeGreaterThan(0);
    const d = drives.rows[0] ?? {};
    expect(Object.keys(d)).toEqual(
      expect.arrayContaining([
        "id",
        "name",
        "memberCount",
        "externalMemberCount",
        "restrictionStatus",
        "filesCount",
        "securityStatus",
      ]),
    );
    expect(drives.metrics.total).toBe(drives.total);
  });

  it("searches name, e-mail and owner, case-insensitively, by substring", async () => {
    const users = body<TPage>(await org.c.get("/api/inventory?type=users&limit=200"));
    const email = String(users.rows[3]?.email);
    const local = email.split("@")[0] ?? "";
    const fragment = local.slice(1, Math.max(4, local.length - 1)).toUpperCase();
    const hit = body<TPage>(
      await org.c.get(`/api/inventory?type=users&search=${encodeURIComponent(fragment)}`),
    );
    expect(hit.rows.map((r) => r.email)).toContain(email);
    for (const r of hit.rows)
      expect(`${String(r.email)} ${String(r.name)}`.toLowerCase()).toContain(fragment.toLowerCase());
    expect(hit.total).toBe(hit.rows.length);

    // Files match on their owner too.
    const byOwner = body<TPage>(
      await org.c.get(`/api/inventory?type=files&limit=200&search=${encodeURIComponent(email)}`),
    );
    expect(byOwner.total).toBeGreaterThanOrEqual(byOwner.rows.length);
    for (const r of byOwner.rows)
      expect(`${String(r.name)} ${String(r.ownerEmail)}`.toLowerCase()).toContain(email);
    const files = body<TPage>(await org.c.get("/api/inventory?type=files&limit=1"));
    const name = String(files.rows[0]?.name);
    const byName = body<TPage>(
      await org.c.get(
        `/api/inventory?type=files&search=${encodeURIComponent(name.slice(0, 6).toLowerCase())}`,
      ),
    );
    expect(byName.rows.map((r) => r.name)).toContain(name);

    // A searched page's total counts every match, on a short page and past the last one alike.
    const term = encodeURIComponent(name.slice(0, 3).toLowerCase());
    const all = body<TPage>(await org.c.get(`/api/inventory?type=files&limit=200&search=${term}`));
    expect(all.total).toBeGreaterThan(2);
    expect(all.rows.length).toBe(Math.min(200, all.total));
    const short = body<TPage>(await org.c.get(`/api/inventory?type=files&limit=2&offset=1&search=${term}`));
    expect(short.total).toBe(all.total);
    expect(short.rows.map((r) => r.id)).toEqual(all.rows.slice(1, 3).map((r) => r.id));
    const past = body<TPage>(
      await org.c.get(`/api/inventory?type=files&limit=2&offset=${all.total}&search=${term}`),
    );
    expect(past).toMatchObject({ rows: [], total: all.total, totalEstimated: false });
    expect(all.totalEstimated).toBe(false);

    // Pattern characters are literal, and a miss is an empty page.
    const none = body<TPage>(await org.c.get("/api/inventory?type=files&search=%25%25_nothing_"));
    expect(none).toMatchObject({ rows: [], total: 0 });
  });

  it("estimates the total of a search matching more than 5,000 files, exact on its last page", async () => {
    // 9,000 files sharing a phrase, as a large tenant's "quarterly report"s: counting every match
    // on each page would cost far more than the page.
    const actor = await scannedOrg(gw, { fileCount: 50 });
    await gw.db.db.execute(sql`
      INSERT INTO workspace_files (id, org_id, connector_id, external_id, name, mime_type, owner_email,
        sensitivity, exposure, modified_at)
      SELECT 'wsf_est_' || g, ${actor.orgId}, ${actor.connectorId}, 'est-' || g, 'Quarterly report ' || g || '.docx',
        'application/vnd.google-apps.document', 'owner' || (g % 40) || '@example.test', 'low', 'private',
        now() - (g || ' minutes')::interval
      FROM generate_series(1, 9000) g`);
    await gw.db.db.execute(sql`ANALYZE workspace_files`);
    const first = body<TPage>(
      await actor.c.get("/api/inventory?type=files&search=quarterly%20report&limit=50"),
    );
    expect(first.rows).toHaveLength(50);
    expect(first.totalEstimated).toBe(true);
    // An estimate, in the right range, and always past this page.
    expect(first.total).toBeGreaterThan(5_000);
    expect(first.total).toBeLessThan(20_000);
    expect(first.nextOffset).toBe(50);
    // The last page ends the matches: exact there.
    const last = body<TPage>(
      await actor.c.get("/api/inventory?type=files&search=quarterly%20report&limit=200&offset=8900"),
    );
    expect(last).toMatchObject({ total: 9_000, totalEstimated: false, nextOffset: null });
    expect(last.rows).toHaveLength(100);
    // A narrower search is counted exactly.
    const few = body<TPage>(await actor.c.get("/api/inventory?type=files&search=report%20123&limit=5"));
    expect(few.totalEstimated).toBe(false);
    expect(few.total).toBe(11); // 123, 1230–1239
  });

  it("pages with limit and offset without repeating or skipping", async () => {
    const all = body<TPage>(await org.c.get("/api/inventory?type=files&limit=200"));
    const ids: string[] = [];
    for (let offset = 0; offset < 200; offset += 37) {
      const page = body<TPage>(await org.c.get(`/api/inventory?type=files&limit=37&offset=${offset}`));
      ids.push(...page.rows.map((r) => String(r.id)));
      // The one offset envelope (offsetPage), as every offset-paged list: nextOffset, null at the end.
      expect(page.nextOffset).toBe(offset + 37 < page.total ? offset + 37 : null);
    }
    const last = body<TPage>(await org.c.get(`/api/inventory?type=users&limit=200`));
    expect(last.nextOffset).toBe(last.total > 200 ? 200 : null);
    expect(ids.slice(0, 200)).toEqual(all.rows.map((r) => String(r.id)));
  });

  it("answers 400 for bad input, 401 without a session, 403 for members and API keys", async () => {
    for (const q of ["type=groups", "limit=201", "limit=0", "offset=-1", "limit=abc"]) {
      const res = await org.c.get(`/api/inventory?${q}`);
      expect(res.status, q).toBe(400);
      expect(code(res)).toBe("invalid_input");
    }
    expect((await gw.request("GET", "/api/inventory", { ip: freshIp() })).status).toBe(401);
    const key = await gw.request("GET", "/api/inventory", { key: org.key, ip: freshIp() });
    expect(key.status).toBe(403);
    expect(code(key)).toBe("session_required");
    const member = await gw.createUser(org.orgId, "member");
    const memberRes = await client(gw, await gw.createSession(org.orgId, member.id)).get("/api/inventory");
    expect(memberRes.status).toBe(403);
    expect(code(memberRes)).toBe("forbidden");
  });

  it("never shows another organization's workspace", async () => {
    const other = await gw.createActor({ plan: "business" });
    const page = body<TPage>(await client(gw, other.cookie).get("/api/inventory?type=files"));
    expect(page).toMatchObject({ rows: [], total: 0 });
    const users = body<TPage>(await org.c.get("/api/inventory?type=users&limit=200"));
    const email = String(users.rows[0]?.email);
    const search = body<TPage>(
      await client(gw, other.cookie).get(`/api/inventory?search=${encodeURIComponent(email)}`),
    );
    expect(search.total).toBe(0);
  });
});
