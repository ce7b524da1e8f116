import { eq } from "drizzle-orm";
import { agentIdOf, oauthGrants, workspaceSnapshots, type Db } from "@posture/db";
import { isKnownVendor } from "./known-vendors";
import { reachByAgent } from "./reach";
import { isBroad, reachOf } from "./scope-reach";

export const QUADRANTS = ["trusted_limited", "trusted_broad", "unknown_limited", "unknown_broad"] as const;
export type TQuadrant = (typeof QUADRANTS)[number];
export type TRiskBand = "low" | "medium" | "high" | "critical";

export type TAgent = {
  id: string;
  label: string;
  kind: "ai_agent" | "oauth_app" | "service_account";
  riskBand: TRiskBand;
  riskScore: number;
  resourceCount: number;
  isKnownPublisher: boolean;
  publisher: string;
  scopes: string[];
  broad: boolean;
  quadrant: TQuadrant;
  users: number;
  connectorId: string;
  clientId: string;
  firstGrantedAt: string;
  /** `application` when any of its grants is app-only (every file its permission covers); else `delegated`. */
  access: "application" | "delegated";
  /** Where the agent kind came from (a platform registry, the publisher catalog); null when not an agent. */
  agentSource: TAgentSource | null;
};

export const AGENT_SOURCES = ["agent_registry", "copilot_catalog", "publisher_catalog"] as const;
export type TAgentSource = (typeof AGENT_SOURCES)[number];

/** The strongest source among an app's grants: its own registry, then the Copilot catalog, then ours. */
function agentSourceOf(list: ReadonlyArray<{ agentSource: string | null }>): TAgentSource | null {
  const sources = new Set(list.map((g) => g.agentSource));
  return AGENT_SOURCES.find((s) => sources.has(s)) ?? null;
}

/** Stable across scans: derived from the connector and the app's OAuth client (`@posture/db`, shared with reach). */
export { agentIdOf };

export function riskBandOf(score: number): TRiskBand {
  return score >= 80 ? "critical" : score >= 60 ? "high" : score >= 35 ? "medium" : "low";
}

/**
 * The organization's apps, AI agents and service accounts: the latest scan's grants grouped by
 * OAuth client. Risk = breadth of the scopes (organization-wide 50, a user's data 35, narrow 10)
 * + unknown publisher 25 + write access 10 + AI agent or service account 10, capped at 100.
 * resourceCount = what the scopes reach: every file and user for organization-wide scopes, the
 * granting users' accounts for per-user scopes.
 */
export async function listAgents(db: Db, { orgId }: { orgId: string }): Promise<TAgent[]> {
  const [grants, snapshots] = await Promise.all([
    db.select().from(oauthGrants).where(eq(oauthGrants.orgId, orgId)),
    db
      .select({
        connectorId: workspaceSnapshots.connectorId,
        files: workspaceSnapshots.files,
        users: workspaceSnapshots.users,
      })
      .from(workspaceSnapshots)
      .where(eq(workspaceSnapshots.orgId, orgId)),
  ]);
  const sizeOf = new Map(snapshots.map((s) => [s.connectorId, s]));
  const groups = new Map<string, Array<typeof oauthGrants.$inferSelect>>();
  for (const g of grants) {
    const key = agentIdOf(g.connectorId, g.clientId || g.externalId);
    const list = groups.get(key) ?? [];
    list.push(g);
    groups.set(key, list);
  }
  const agents: TAgent[] = [];
  for (const [id, list] of groups) {
    const first = list[0];
    if (!first) continue;
    const scopes = [...new Set(list.flatMap((g) => g.scopes))].sort();
    const reaches = scopes.map(reachOf);
    const orgWide = reaches.some((r) => r.breadth === "org") || first.kind === "service_account";
    const perUser = reaches.some((r) => r.breadth === "user");
    const write = reaches.some((r) => r.write);
    const known = list.some((g) => g.isKnownPublisher) || isKnownVendor(first.publisher);
    const broad = isBroad(scopes) || (first.kind === "service_account" && scopes.length > 0);
    const size = sizeOf.get(first.connectorId);
    const users = new Set(list.map((g) => g.userEmail)).size;
    const resourceCount = orgWide ? (size?.files ?? 0) + (size?.users ?? 0) : perUser ? users : 0;
    const riskScore = Math.min(
      100,
      (orgWide ? 50 : perUser ? 35 : 10) +
        (known ? 0 : 25) +
        (write ? 10 : 0) +
        (first.kind === "oauth_app" ? 0 : 10),
    );
    agents.push({
      id,
      label: first.label,
      kind: first.kind,
      riskBand: riskBandOf(riskScore),
      riskScore,
      resourceCount,
      isKnownPublisher: known,
      publisher: first.publisher,
      scopes,
      broad,
      quadrant: `${known ? "trusted" : "unknown"}_${broad ? "broad" : "limited"}`,
      users,
      connectorId: first.connectorId,
      clientId: first.clientId || first.externalId,
      firstGrantedAt: new Date(Math.min(...list.map((g) => g.grantedAt.getTime()))).toISOString(),
      access: list.some((g) => g.access === "application") ? "application" : "delegated",
      agentSource: agentSourceOf(list),
    });
  }
  return agents.sort(
    (a, b) => b.riskScore - a.riskScore || a.label.localeCompare(b.label) || a.id.localeCompare(b.id),
  );
}

export async function getAgentInventory(db: Db, { orgId }: { orgId: string }) {
  const agents = await listAgents(db, { orgId });
  const count = (p: (a: TAgent) => boolean) => agents.filter(p).length;
  return {
    agents,
    metrics: {
      total: agents.length,
      unvettedBroad: count((a) => a.quadrant === "unknown_broad"),
      aiAgents: count((a) => a.kind === "ai_agent"),
      serviceAccounts: count((a) => a.kind === "service_account"),
      oauthApps: count((a) => a.kind === "oauth_app"),
      highRisk: count((a) => a.riskBand === "high" || a.riskBand === "critical"),
      knownPublishers: count((a) => a.isKnownPublisher),
    },
  };
}

/** An app that can read at least this share of its connector's files is broad, whatever its scopes are called. */
export const BROAD_REACH_SHARE = 0.1;

/**
 * Agents by breadth and publisher trust. Breadth comes from reach where the app reads files: the
 * files it can open (application access: every file of its connector; delegated: its granting
 * users' files), broad at BROAD_REACH_SHARE of the connector's files; apps that read no files keep
 * their scopes' breadth.
 */
export async function getRiskMatrix(db: Db, { orgId }: { orgId: string }) {
  const [agents, snapshots] = await Promise.all([
    listAgents(db, { orgId }),
    db
      .select({ connectorId: workspaceSnapshots.connectorId, files: workspaceSnapshots.files })
      .from(workspaceSnapshots)
      .where(eq(workspaceSnapshots.orgId, orgId)),
  ]);
  const filesOf = new Map(snapshots.map((s) => [s.connectorId, s.files]));
  const reach = await reachByAgent(db, { orgId, scopesOf: new Map(agents.map((a) => [a.id, a.scopes])) });
  const quadrantCounts = Object.fromEntries(QUADRANTS.map((q) => [q, 0])) as Record<TQuadrant, number>;
  const points = agents.map((a) => {
    const r = reach.get(a.id) ?? { basis: "no_file_access" as const, counts: null };
    const files = filesOf.get(a.connectorId) ?? 0;
    const broad =
      r.basis === "no_file_access" || r.counts === null
        ? a.broad
        : r.counts.total >= Math.max(1, Math.ceil(files * BROAD_REACH_SHARE));
    const quadrant: TQuadrant = `${a.isKnownPublisher ? "trusted" : "unknown"}_${broad ? "broad" : "limited"}`;
    quadrantCounts[quadrant]++;
    return {
      id: a.id,
      label: a.label,
      kind: a.kind,
      quadrant,
      riskScore: a.riskScore,
      basis: r.basis,
      reachableFiles: r.counts?.total ?? 0,
      sensitiveReachableFiles: r.counts?.sensitive ?? 0,
    };
  });
  return { points, quadrantCounts };
}
