import { describe, expect, it } from "vitest";
import { DAY_MS, engine, NOW, user } from "./test-fixtures";

const daysAgo = (days: number) => new Date(NOW.getTime() - days * DAY_MS).toISOString();

function run(users: ReturnType<typeof user>[]) {
  const e = engine();
  for (const u of users) e.addUser(u);
  return e.findings();
}

describe("identity rules", () => {
  it("flags an admin without MFA as CRITICAL and a user without MFA as HIGH", () => {
    const findings = run([
      user("admin", { isAdmin: true, mfaEnabled: false }),
      user("bob", { mfaEnabled: false }),
    ]);
    expect(findings.map((f) => [f.resourceId, f.ruleId, f.severity, f.category, f.resourceType])).toEqual([
      ["admin", "admin_without_mfa", "CRITICAL", "identity", "user"],
      ["bob", "user_without_mfa", "HIGH", "identity", "user"],
    ]);
    expect(findings[1]?.resourceName).toBe("bob@acme.com");
  });

  it("flags accounts idle for more than 90 days as MEDIUM, counting never-used accounts from creation", () => {
    const findings = run([
      user("idle91", { lastLoginAt: daysAgo(91) }),
      user("idle90", { lastLoginAt: daysAgo(90) }),
      user("never-old", { lastLoginAt: null, createdAt: daysAgo(200) }),
      user("never-new", { lastLoginAt: null, createdAt: daysAgo(10) }),
    ]);
    expect(findings.map((f) => [f.resourceId, f.ruleId, f.severity])).toEqual([
      ["idle91", "dormant_account", "MEDIUM"],
      ["never-old", "dormant_account", "MEDIUM"],
    ]);
    expect(findings[0]?.details.idleDays).toBe(91);
  });

  it("skips the MFA rules and the dormant rule for values the source could not read", () => {
    const findings = run([
      // No registration details (AuditLog.Read.All or Entra ID P1/P2 missing): MFA unknown.
      user("admin-unknown-mfa", { isAdmin: true, mfaEnabled: false, unknown: ["mfa"] }),
      user("unknown-mfa", { mfaEnabled: false, unknown: ["mfa"], lastLoginAt: daysAgo(200) }),
      // No signInActivity: last sign-in unknown, however old the account.
      user("unknown-login", { lastLoginAt: null, createdAt: daysAgo(400), unknown: ["lastLogin"] }),
      user("unknown-both", { mfaEnabled: false, lastLoginAt: null, unknown: ["mfa", "lastLogin"] }),
      // What is known is still judged.
      user("known-no-mfa", { mfaEnabled: false, unknown: ["lastLogin"] }),
    ]);
    expect(findings.map((f) => [f.resourceId, f.ruleId])).toEqual([
      ["unknown-mfa", "dormant_account"],
      ["known-no-mfa", "user_without_mfa"],
    ]);
  });

  it("ignores suspended accounts", () => {
    expect(
      run([user("gone", { suspended: true, mfaEnabled: false, isAdmin: true, lastLoginAt: daysAgo(400) })]),
    ).toEqual([]);
  });

  it("reports too many admins once, on the workspace, above max(3, 5% of active accounts)", () => {
    const team = (admins: number, total: number, suspendedAdmins = 0) => [
      ...Array.from({ length: admins }, (_, i) => user(`admin${i}`, { isAdmin: true })),
      ...Array.from({ length: suspendedAdmins }, (_, i) =>
        user(`old-admin${i}`, { isAdmin: true, suspended: true }),
      ),
      ...Array.from({ length: total - admins }, (_, i) => user(`member${i}`)),
    ];
    const excess = (users: ReturnType<typeof user>[]) =>
      run(users).filter((f) => f.ruleId === "excess_admins");

    expect(excess(team(3, 20))).toHaveLength(0);
    const [four] = excess(team(4, 20));
    expect(four).toMatchObject({
      severity: "MEDIUM",
      category: "identity",
      resourceId: "workspace",
      resourceName: "acme.com",
      resourceType: "workspace",
      details: { adminCount: 4, activeUsers: 20 },
    });
    expect(excess(team(5, 100))).toHaveLength(0);
    expect(excess(team(6, 100))).toHaveLength(1);
    expect(excess(team(3, 20, 5))).toHaveLength(0);
  });
});
