import { describe, expect, it } from "vitest";
import { collect } from "../../../fakes/src/adapter-harness";
import type { TActivityEvent, TSuiteType, TPermission } from "../types";
import { createDemoAdapter, describeDemoWorkspace } from "./index";

const NOW = new Date("2025-06-01T12:00:00.000Z");
const DAY_MS = 86_400_000;

describe.each<[TSuiteType, string]>([
  ["google_workspace", "proportions-a"],
  ["microsoft_365", "proportions-b"],
])("a 5,000-file %s demo workspace (%s)", (type, seed) => {
  const opts = { seed, type, fileCount: 5000, epoch: NOW };
  const description = describeDemoWorkspace(opts);
  const internal = new Set(description.internalDomains);
  const adapter = createDemoAdapter(opts);
  const domainOf = (p: TPermission) => (p.type === "domain" ? p.domain : p.emailAddress?.split("@")[1]);
  const isExternal = (p: TPermission) =>
    (p.type === "user" || p.type === "group" || p.type === "domain") && !internal.has(domainOf(p) ?? "");

  it("has 3–5% public links and 10–15% external shares, partly to trusted partners, some writable", async () => {
    const files = await collect(adapter.files());
    expect(files).toHaveLength(5000);
    const publicFiles = files.filter((f) => f.permissions.some((p) => p.type === "anyone"));
    const externalFiles = files.filter((f) => f.permissions.some(isExternal));
    expect(publicFiles.length / files.length).toBeGreaterThanOrEqual(0.03);
    expect(publicFiles.length / files.length).toBeLessThanOrEqual(0.05);
    expect(externalFiles.length / files.length).toBeGreaterThanOrEqual(0.1);
    expect(externalFiles.length / files.length).toBeLessThanOrEqual(0.15);

    const grants = externalFiles.flatMap((f) => f.permissions.filter(isExternal));
    const domains = new Set(grants.map(domainOf));
    for (const trusted of description.trustedPartnerDomains) expect(domains.has(trusted)).toBe(true);
    expect(domains.has("gmail.com")).toBe(true);
    expect(domains.has("outlook.com")).toBe(true);
    expect(grants.some((p) => p.role === "writer")).toBe(true);
    expect(grants.some((p) => p.type === "domain")).toBe(true);
    expect(
      publicFiles.some((f) => f.permissions.some((p) => p.type === "anyone" && p.role === "writer")),
    ).toBe(true);
  });

  it("licenses about a third of the users for the suite's assistant, every administrator among them", async () => {
    const users = await collect(adapter.users());
    const assistant = type === "microsoft_365" ? "copilot" : "gemini";
    const licensed = users.filter((u) => u.assistants?.includes(assistant));
    expect(users.every((u) => (u.assistants ?? []).every((a) => a === assistant))).toBe(true);
    expect(users.filter((u) => u.isAdmin).every((u) => u.assistants?.includes(assistant))).toBe(true);
    expect(licensed.length / users.length).toBeGreaterThanOrEqual(0.33);
    expect(licensed.length / users.length).toBeLessThanOrEqual(0.45);
  });

  it("labels most sensitively named files and some others in the source's taxonomy, some labelled files exposed", async () => {
    const files = await collect(adapter.files());
    const names =
      type === "microsoft_365"
        ? ["Public", "General", "Confidential", "Highly Confidential"]
        : ["Public", "Internal", "Confidential", "Highly Confidential"];
    expect(new Set(files.map((f) => f.label ?? null))).toEqual(new Set([null, ...names]));
    const sensitiveName = /payroll|passwords|contract|confidential - |ssn|invoice|salary/i;
    const sensitive = files.filter((f) => sensitiveName.test(f.name));
    const ordinary = files.filter((f) => !sensitiveName.test(f.name));
    const rate = (list: typeof files) => list.filter((f) => f.label).length / list.length;
    // Partial on purpose: the data-classification evidence of a demo tenant is not a pass.
    expect(rate(sensitive)).toBeGreaterThanOrEqual(0.6);
    expect(rate(sensitive)).toBeLessThanOrEqual(0.8);
    expect(rate(ordinary)).toBeGreaterThanOrEqual(0.15);
    expect(rate(ordinary)).toBeLessThanOrEqual(0.25);
    // Never above a file's level, sometimes one below: a payroll sheet is never "Public".
    expect(sensitive.some((f) => f.label === "Public")).toBe(false);
    const confidential = files.filter((f) => f.label === "Confidential" || f.label === "Highly Confidential");
    expect(confidential.filter((f) => f.permissions.some((p) => p.type === "anyone")).length).toBeGreaterThan(
      5,
    );
    expect(confidential.filter((f) => f.permissions.some(isExternal)).length).toBeGreaterThan(20);
  });

  it("puts files in shared drives whose file counts match, some with outside members and no domain restriction", async () => {
    const drives = await collect(adapter.sharedDrives());
    const files = await collect(adapter.files());
    expect(drives.length).toBe(description.counts.sharedDrives);
    for (const drive of drives) {
      expect(drive.fileCount).toBe(files.filter((f) => f.driveId === drive.id).length);
    }
    const outside = drives.filter((d) => d.members.some((m) => !internal.has(m.email.split("@")[1] ?? "")));
    expect(outside.some((d) => !d.restrictions.domainUsersOnly)).toBe(true);
    expect(drives.some((d) => d.restrictions.domainUsersOnly)).toBe(true);
  });

  it("has 10–20% users without MFA including an admin, dormant accounts, and a handful of admins", async () => {
    const users = await collect(adapter.users());
    expect(users.length).toBe(Math.max(25, 5000 / 40));
    const noMfa = users.filter((u) => !u.mfaEnabled);
    expect(noMfa.length / users.length).toBeGreaterThanOrEqual(0.1);
    expect(noMfa.length / users.length).toBeLessThanOrEqual(0.2);
    expect(noMfa.some((u) => u.isAdmin)).toBe(true);
    const admins = users.filter((u) => u.isAdmin);
    expect(admins.length).toBeGreaterThanOrEqual(4);
    expect(admins.length).toBeLessThanOrEqual(6);
    const dormant = users.filter(
      (u) =>
        !u.suspended && (u.lastLoginAt === null || Date.parse(u.lastLoginAt) < NOW.getTime() - 90 * DAY_MS),
    );
    expect(dormant.length).toBeGreaterThan(0);
    expect(users.some((u) => u.suspended)).toBe(true);
  });

  it("has OAuth apps, AI agents and service accounts, from known and unknown publishers, granted by its users", async () => {
    const grants = await collect(adapter.appGrants());
    const emails = new Set((await collect(adapter.users())).map((u) => u.email));
    expect(new Set(grants.map((g) => g.kind))).toEqual(new Set(["oauth_app", "ai_agent", "service_account"]));
    const agents = grants.filter((g) => g.kind === "ai_agent");
    expect(agents.some((g) => g.isKnownPublisher)).toBe(true);
    expect(agents.some((g) => !g.isKnownPublisher)).toBe(true);
    for (const grant of grants) expect(emails.has(grant.userEmail)).toBe(true);
  });

  it("has 13 weeks of activity, oldest first, with a sharing spike, a bulk access, a reactivation, an OAuth burst and a mass deletion", async () => {
    const events = await collect(adapter.activity(new Date(0)));
    const times = events.map((e) => Date.parse(e.at));
    expect(times.every((t, i) => i === 0 || t >= (times[i - 1] ?? 0))).toBe(true);
    expect(Math.min(...times)).toBeGreaterThanOrEqual(NOW.getTime() - 91 * DAY_MS);
    expect(Math.max(...times)).toBeLessThanOrEqual(NOW.getTime());
    // Ids as the source names them: Microsoft 365 audit records' GUIDs, unique either way.
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    if (type === "microsoft_365")
      for (const e of events)
        expect(e.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/);

    const maxPerActorInWindow = (type: TActivityEvent["type"], windowMs: number) => {
      let best = 0;
      const byActor = new Map<string, number[]>();
      for (const e of events) {
        if (e.type !== type) continue;
        const list = byActor.get(e.actorEmail) ?? [];
        list.push(Date.parse(e.at));
        byActor.set(e.actorEmail, list);
      }
      for (const list of byActor.values()) {
        let start = 0;
        for (let end = 0; end < list.length; end++) {
          while ((list[end] ?? 0) - (list[start] ?? 0) > windowMs) start++;
          best = Math.max(best, end - start + 1);
        }
      }
      return best;
    };
    expect(maxPerActorInWindow("share_external", 2 * 3_600_000)).toBeGreaterThanOrEqual(30);
    expect(maxPerActorInWindow("file_access", 3_600_000)).toBeGreaterThanOrEqual(150);
    expect(maxPerActorInWindow("oauth_grant", 3_600_000)).toBeGreaterThanOrEqual(5);
    // Mass deletion: one person bins well over the rule's 50 files within an hour; nobody else comes close.
    expect(maxPerActorInWindow("file_delete", 3_600_000)).toBeGreaterThanOrEqual(100);
    const deleters = new Map<string, number>();
    for (const e of events)
      if (e.type === "file_delete") deleters.set(e.actorEmail, (deleters.get(e.actorEmail) ?? 0) + 1);
    expect([...deleters.values()].filter((n) => n >= 50)).toHaveLength(1);

    // Reactivation: an account silent for at least 30 days whose return is a login in the last few days.
    const byActor = new Map<string, number[]>();
    for (const e of events)
      byActor.set(e.actorEmail, [...(byActor.get(e.actorEmail) ?? []), Date.parse(e.at)]);
    const reactivated = [...byActor.values()].filter((times) =>
      times.some((t, i) => i > 0 && t > NOW.getTime() - 5 * DAY_MS && t - (times[i - 1] ?? t) >= 30 * DAY_MS),
    );
    expect(reactivated.length).toBe(1);
  });

  it("returns only activity since the given time", async () => {
    const since = new Date(NOW.getTime() - 2 * DAY_MS);
    const recent = await collect(adapter.activity(since));
    const all = await collect(adapter.activity(new Date(0)));
    expect(recent.length).toBeGreaterThan(0);
    expect(recent.every((e) => Date.parse(e.at) >= since.getTime())).toBe(true);
    expect(recent).toEqual(all.filter((e) => Date.parse(e.at) >= since.getTime()));
  });
});
