import { afterEach, describe, expect, it, vi } from "vitest";
import { collect } from "../../../fakes/src/adapter-harness";
import type { TAppGrant, TPermission, TSourceAdapter, TSourceUser } from "../types";
import { createDemoAdapter, describeDemoWorkspace, type TDemoOptions } from "./index";

const EPOCH = new Date("2026-03-02T09:00:00.000Z");
const DAY_MS = 86_400_000;
const opts: TDemoOptions = { seed: "revisions", type: "google_workspace", fileCount: 5000, epoch: EPOCH };
const internal = new Set(describeDemoWorkspace(opts).internalDomains);
const isOutside = (p: TPermission) => {
  const domain = p.type === "domain" ? p.domain : p.emailAddress?.split("@")[1];
  return p.type === "anyone" || (domain !== undefined && !internal.has(domain));
};

async function read(adapter: TSourceAdapter) {
  return {
    workspace: await adapter.workspace(),
    users: await collect(adapter.users()),
    files: await collect(adapter.files()),
    drives: await collect(adapter.sharedDrives()),
    grants: await collect(adapter.appGrants()),
    activity: await collect(adapter.activity(new Date(0))),
    settings: await adapter.tenantSettings(),
  };
}

const byId = <T extends { id: string }>(items: T[]) => new Map(items.map((i) => [i.id, i]));

describe("the demo tenant's clock", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("reads an unchanged tenant identically whatever the wall clock says", async () => {
    const small = { ...opts, fileCount: 400, revision: 3 };
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-03-02T09:30:00.000Z"));
    const first = await read(createDemoAdapter(small));
    vi.setSystemTime(new Date("2026-07-19T23:59:00.000Z"));
    const later = await read(createDemoAdapter(small));
    expect(later).toEqual(first);
    expect(first.files.length).toBeGreaterThan(350);
  });

  it("dates a revision a day after the one before: each adds a day of activity, the past unchanged", async () => {
    const small = { ...opts, fileCount: 400 };
    const at0 = await collect(createDemoAdapter(small).activity(new Date(0)));
    const at1 = await collect(createDemoAdapter({ ...small, revision: 1 }).activity(new Date(0)));
    const last = (events: typeof at0) => Math.max(...events.map((e) => Date.parse(e.at)));
    expect(last(at0)).toBeLessThanOrEqual(EPOCH.getTime());
    expect(last(at1)).toBeGreaterThan(EPOCH.getTime());
    expect(last(at1)).toBeLessThanOrEqual(EPOCH.getTime() + DAY_MS);
    // The day after the epoch is new; the days both windows share are the same events.
    const shared = (e: (typeof at0)[number]) =>
      Date.parse(e.at) >= EPOCH.getTime() - 90 * DAY_MS && Date.parse(e.at) <= EPOCH.getTime();
    const old = byId(at0.filter(shared));
    const again = at1.filter(shared);
    expect(again.length).toBeGreaterThan(old.size * 0.95);
    for (const e of again) expect(old.get(e.id)).toEqual(e);
    expect(new Set(at1.map((e) => e.id)).size).toBe(at1.length);
    const since = new Date(EPOCH.getTime());
    expect(await collect(createDemoAdapter({ ...small, revision: 1 }).activity(since))).toEqual(
      at1.filter((e) => Date.parse(e.at) >= since.getTime()),
    );
  });

  it("dates what a revision changed within that revision's day", async () => {
    const before = byId(await collect(createDemoAdapter({ ...opts, revision: 4 }).files()));
    const after = await collect(createDemoAdapter({ ...opts, revision: 5 }).files());
    const changed = after.filter((f) => JSON.stringify(before.get(f.id)) !== JSON.stringify(f));
    expect(changed.length).toBeGreaterThan(0);
    for (const f of changed) {
      if (Date.parse(f.modifiedAt) <= EPOCH.getTime() + 4 * DAY_MS) {
        // Reverted to its original state: dated from before the epoch.
        expect(Date.parse(f.modifiedAt)).toBeLessThanOrEqual(EPOCH.getTime());
      } else expect(Date.parse(f.modifiedAt)).toBeLessThanOrEqual(EPOCH.getTime() + 5 * DAY_MS);
    }
  });
});

describe("a demo tenant over revisions", () => {
  it("keeps its proportions over 300 revisions", async () => {
    for (const revision of [0, 60, 300]) {
      const t = await read(createDemoAdapter({ ...opts, revision }));
      const files = t.files.length;
      expect(files).toBeGreaterThan(4500);
      expect(files).toBeLessThan(5500);
      const exposed = t.files.filter((f) => f.permissions.some(isOutside)).length / files;
      expect(exposed).toBeGreaterThan(0.12);
      expect(exposed).toBeLessThan(0.22);
      const active = t.users.filter((u) => !u.suspended);
      expect(t.users.length).toBeGreaterThanOrEqual(125);
      expect(t.users.length).toBeLessThan(125 * 1.3);
      const noMfa = active.filter((u) => !u.mfaEnabled).length / active.length;
      expect(noMfa).toBeGreaterThan(0.04);
      expect(noMfa).toBeLessThan(0.25);
      expect(t.users.filter((u) => u.isAdmin).length).toBeLessThanOrEqual(10);
      expect(t.users.filter((u) => u.suspended).length / t.users.length).toBeLessThan(0.08);
      expect(t.grants.length).toBeGreaterThan(187 * 0.8);
      expect(t.grants.length).toBeLessThan(187 * 1.2);
      const inDrives = t.files.filter((f) => f.driveId !== null).length;
      expect(t.drives.reduce((n, d) => n + d.fileCount, 0)).toBe(inDrives);
      for (const drive of t.drives)
        expect(drive.fileCount).toBe(t.files.filter((f) => f.driveId === drive.id).length);
      // Every grant's user and every file's owner is a user of the tenant.
      const emails = new Set(t.users.map((u) => u.email));
      for (const grant of t.grants) expect(emails.has(grant.userEmail)).toBe(true);
      for (const file of t.files) expect(emails.has(file.ownerEmail)).toBe(true);
      expect(new Set(t.users.map((u) => u.email)).size).toBe(t.users.length);
      expect(new Set(t.grants.map((g) => g.id)).size).toBe(t.grants.length);
    }
  }, 120_000);

  it("changes users and grants like a real tenant: joiners, leavers, suspensions, elevations, MFA, grants", async () => {
    const seen = { joined: 0, left: 0, suspended: 0, reinstated: 0, elevated: 0, demoted: 0, enrolled: 0 };
    const grants = { granted: 0, revoked: 0, widened: 0 };
    const sized = { ...opts, fileCount: 1000, userCount: 400 };
    let users: Map<string, TSourceUser> = byId(await collect(createDemoAdapter(sized).users()));
    let apps: Map<string, TAppGrant> = byId(await collect(createDemoAdapter(sized).appGrants()));
    for (let r = 1; r <= 30; r++) {
      const adapter = createDemoAdapter({ ...sized, revision: r });
      const nextUsers = byId(await collect(adapter.users()));
      const joiners = [...nextUsers.values()].filter((u) => !users.has(u.id));
      // Every revision someone joins, without MFA yet: a new finding at each revision.
      expect(joiners.length).toBeGreaterThan(0);
      expect(joiners.some((u) => !u.mfaEnabled && !u.suspended)).toBe(true);
      seen.joined += joiners.length;
      seen.left += [...users.keys()].filter((id) => !nextUsers.has(id)).length;
      for (const [id, u] of nextUsers) {
        const was = users.get(id);
        if (!was) continue;
        if (!was.suspended && u.suspended) seen.suspended++;
        if (was.suspended && !u.suspended) seen.reinstated++;
        if (!was.isAdmin && u.isAdmin) seen.elevated++;
        if (was.isAdmin && !u.isAdmin) seen.demoted++;
        if (!was.mfaEnabled && u.mfaEnabled) seen.enrolled++;
        expect(was.mfaEnabled && !u.mfaEnabled).toBe(false);
        expect(u.email).toBe(was.email);
      }
      const nextApps = byId(await collect(adapter.appGrants()));
      grants.granted += [...nextApps.keys()].filter((id) => !apps.has(id)).length;
      grants.revoked += [...apps.keys()].filter((id) => !nextApps.has(id)).length;
      for (const [id, g] of nextApps) {
        const was = apps.get(id);
        if (was && g.scopes.length > was.scopes.length) grants.widened++;
      }
      users = nextUsers;
      apps = nextApps;
    }
    for (const [kind, n] of Object.entries({ ...seen, ...grants })) expect(n, kind).toBeGreaterThan(0);
  }, 120_000);

  it("resolves one finding for sure at revision 1: the scripted user turns MFA on", async () => {
    const before = await collect(createDemoAdapter({ ...opts, fileCount: 300 }).users());
    const after = byId(await collect(createDemoAdapter({ ...opts, fileCount: 300, revision: 1 }).users()));
    expect(
      before.filter((u) => !u.mfaEnabled && after.get(u.id)?.mfaEnabled === true).length,
    ).toBeGreaterThan(0);
  });
});
