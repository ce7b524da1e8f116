import { describe, expect, it } from "vitest";
import { demoGroups, internalOversharing, TEAM_GROUPS_FROM_USERS } from "./groups";
import { shapeOf } from "./shape";
import { userEmailAt } from "./users";

const shape = (fileCount: number) =>
  shapeOf({
    seed: "groups-test",
    type: "google_workspace",
    fileCount,
    epoch: new Date("2026-11-01T00:00:00Z"),
  });

describe("the demo directory's groups", () => {
  it("keeps a tenant below 10,000 users to its four broad groups, without team grants", () => {
    const s = shape(100_000);
    expect(s.userCount).toBe(2_500);
    expect(demoGroups(s).map((g) => g.name)).toEqual([
      "All Staff",
      "Company Announcements",
      "Engineering",
      "Sales",
    ]);
    const teamGrants = Array.from({ length: 2_000 }, (_, i) =>
      internalOversharing(s, i, `p${i}`, false),
    ).flat();
    expect(teamGrants.filter((p) => p.id.endsWith("-t"))).toEqual([]);
  });

  it("gives the 1,000,000-file tenant 25,000 users and 5,000 groups, teams of five with their members", () => {
    const s = shape(1_000_000);
    expect(s.userCount).toBe(25_000);
    expect(s.userCount).toBeGreaterThanOrEqual(TEAM_GROUPS_FROM_USERS);
    const groups = demoGroups(s);
    expect(groups).toHaveLength(5_000);
    const team = groups[4];
    expect(team).toMatchObject({ id: "grp-team-0000", name: "Team 1", memberCount: 5 });
    expect(team?.memberEmails).toEqual([0, 1, 2, 3, 4].map((i) => userEmailAt(s, i)));
    // About one file in twenty is also shared with a team, always one that exists.
    const emails = new Set(groups.map((g) => g.email));
    const teamGrants = Array.from({ length: 4_000 }, (_, i) => internalOversharing(s, i, `p${i}`, false))
      .flat()
      .filter((p) => p.id.endsWith("-t"));
    expect(teamGrants.length).toBe(192);
    for (const p of teamGrants) expect(p.type === "group" && emails.has(p.emailAddress ?? "")).toBe(true);
  });
});
