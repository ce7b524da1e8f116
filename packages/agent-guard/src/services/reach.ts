import {
  agentWho,
  listAgentPrincipals,
  reachCounts,
  reachPage,
  type Db,
  type TAgentPrincipal,
  type TReachCounts,
} from "@posture/db";
import { notFound } from "@posture/platform";
import { reachOf } from "./scope-reach";

// What an agent can read (issue 30): its scopes say whether it reads files at all; its grants'
// access says whose: application-wide access reads every file of its connector, delegated access
// what its granting users can open (`@posture/db`'s reach: owned, granted, groups, drives, org-wide).

/** `application`: every file of its connector; `delegated`: its granting users' files; `no_file_access`: no scope reads files. */
export type TReachBasis = "application" | "delegated" | "no_file_access";

/** Whether any of the scopes reads files (Drive, OneDrive/SharePoint, the tenant-wide ones). */
export const readsFiles = (scopes: readonly string[]): boolean =>
  scopes.some((s) => reachOf(s).kind === "files");

export const basisOf = (scopes: readonly string[], access: TAgentPrincipal["access"]): TReachBasis =>
  readsFiles(scopes) ? access : "no_file_access";

const NONE: TReachCounts = {
  total: 0,
  sensitive: 0,
  orgWide: 0,
  bySensitivity: { high: 0, medium: 0, low: 0 },
  byExposure: { public: 0, external: 0, internal: 0, private: 0 },
};

/** Each app's file reach by id (the risk matrix): one count per app that reads files. */
export async function reachByAgent(
  db: Db,
  q: { orgId: string; scopesOf: ReadonlyMap<string, readonly string[]> },
): Promise<Map<string, { basis: TReachBasis; counts: TReachCounts }>> {
  const { orgId, scopesOf } = q;
  const principals = await listAgentPrincipals(db, orgId);
  const out = new Map<string, { basis: TReachBasis; counts: TReachCounts }>();
  for (const p of principals) {
    const basis = basisOf(scopesOf.get(p.agentId) ?? [], p.access);
    out.set(p.agentId, {
      basis,
      counts: basis === "no_file_access" ? NONE : await reachCounts(db, orgId, agentWho(p)),
    });
  }
  return out;
}

export async function getAgentReach(
  db: Db,
  q: { orgId: string; agentId: string; scopes: readonly string[]; limit: number; offset: number },
) {
  const principal = (await listAgentPrincipals(db, q.orgId)).find((p) => p.agentId === q.agentId);
  if (!principal) throw notFound("Agent");
  const basis = basisOf(q.scopes, principal.access);
  const head = { agentId: q.agentId, basis, limit: q.limit, offset: q.offset };
  if (basis === "no_file_access") return { ...head, ...NONE, rows: [] };
  const who = agentWho(principal);
  const [counts, page] = await Promise.all([
    reachCounts(db, q.orgId, who),
    reachPage(db, q.orgId, who, { limit: q.limit, offset: q.offset }),
  ]);
  return {
    ...head,
    ...counts,
    rows: page.rows.map((r) => ({
      fileId: r.fileId,
      name: r.name,
      label: r.label,
      sensitivity: r.sensitivity,
      exposure: r.exposure,
      ownerEmail: r.ownerEmail,
      reach: r.reach,
    })),
  };
}
