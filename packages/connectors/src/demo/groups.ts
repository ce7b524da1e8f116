import type { TPermission, TSourceGroup } from "../types";
import { hash01, STREAMS } from "./prng";
import { DAY_MS, isoAt, type TDemoShape } from "./shape";
import { userEmailAt } from "./users";

/**
 * A large directory (issue 30's 1M-file organization: 25,000 users, 5,000 groups) also has team
 * groups of five, with their member lists, from this many users on; smaller tenants keep their
 * four broad groups alone, so their data does not move.
 */
export const TEAM_GROUPS_FROM_USERS = 10_000;
const TEAM_SIZE = 5;

/** How many team groups the tenant has (0 below TEAM_GROUPS_FROM_USERS users). */
export const teamGroupCount = (shape: TDemoShape): number =>
  shape.userCount < TEAM_GROUPS_FROM_USERS ? 0 : Math.floor(shape.userCount / TEAM_SIZE) - 4;

const teamLocal = (t: number) => `team-${t.toString().padStart(4, "0")}`;

/**
 * The directory's groups (issue 30): a few large ones, read with their sizes only (no member
 * lists), sized from the tenant's base user count so they stay the same from one revision to the
 * next (a group that changed size would make the next scan a full one, see scans' rules key).
 */
export function demoGroups(shape: TDemoShape): TSourceGroup[] {
  const n = shape.userCount;
  const group = (local: string, name: string, share: number): TSourceGroup => ({
    id: `grp-${local}`,
    email: `${local}@${shape.domain}`,
    name,
    memberCount: Math.max(1, Math.round(n * share)),
  });
  const teams = Array.from({ length: teamGroupCount(shape) }, (_, t): TSourceGroup => {
    const memberEmails = Array.from({ length: TEAM_SIZE }, (_, k) => userEmailAt(shape, t * TEAM_SIZE + k));
    return {
      id: `grp-${teamLocal(t)}`,
      email: `${teamLocal(t)}@${shape.domain}`,
      name: `Team ${t + 1}`,
      memberCount: memberEmails.length,
      memberEmails,
    };
  });
  return [
    group("all-staff", "All Staff", 0.94),
    group("company-announcements", "Company Announcements", 0.97),
    group("engineering", "Engineering", 0.3),
    group("sales", "Sales", 0.18),
    ...teams,
  ];
}

/** hash01 draws of internal oversharing, apart from the file's own generator (no other field moves). */
const DRAW = {
  orgLink: 0x0e11,
  everyone: 0x0e12,
  group: 0x0e13,
  role: 0x0e14,
  facts: 0x0e15,
  team: 0x0e16,
} as const;
/** The share of files also shared with a team group (tenants with team groups only). */
const TEAM_SHARE_RATE = 0.05;

/**
 * Internal oversharing on file `index`, added to its permissions: an organization-wide link on
 * one sensitive file in five (Google: searchable one time in three; a few with an expiry), a grant
 * to Everyone / Everyone except external users on some files of the Microsoft tenant, and a grant
 * to All Staff or Company Announcements on a few files, sensitive ones more often.
 */
export function internalOversharing(
  shape: TDemoShape,
  index: number,
  pid: string,
  sensitive: boolean,
): TPermission[] {
  const draw = (d: number) => hash01(shape.words, STREAMS.file, index, d);
  const role = draw(DRAW.role) < 0.2 ? "writer" : "reader";
  const facts = draw(DRAW.facts);
  const added: TPermission[] = [];
  if (sensitive && draw(DRAW.orgLink) < 0.2) {
    added.push({
      id: `${pid}-o`,
      type: "domain",
      role,
      domain: shape.domain,
      link: {
        expiresAt: facts < 0.15 ? isoAt(shape.epochMs + 30 * DAY_MS) : null,
        discoverable: shape.type === "google_workspace" && facts > 0.66,
      },
    });
  }
  if (shape.type !== "google_workspace" && draw(DRAW.everyone) < (sensitive ? 0.06 : 0.012)) {
    added.push({
      id: `${pid}-e`,
      type: "domain",
      role,
      domain: shape.domain,
      everyone: facts < 0.3 ? "all" : "members",
    });
  }
  if (draw(DRAW.group) < (sensitive ? 0.1 : 0.02)) {
    const local = facts < 0.5 ? "all-staff" : "company-announcements";
    added.push({ id: `${pid}-g`, type: "group", role, emailAddress: `${local}@${shape.domain}` });
  }
  const teams = teamGroupCount(shape);
  const team = draw(DRAW.team);
  if (teams > 0 && team < TEAM_SHARE_RATE) {
    const t = Math.floor((team / TEAM_SHARE_RATE) * teams) % teams;
    added.push({ id: `${pid}-t`, type: "group", role, emailAddress: `${teamLocal(t)}@${shape.domain}` });
  }
  return added;
}
