import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { activityEvents, connectors, oauthGrantEvents, type Db } from "@posture/db";
import { notFound } from "@posture/platform";
import { listAgents } from "./agents";

const REPORTS_SCOPES = [
  "https://www.googleapis.com/auth/admin.reports.audit.readonly",
  "auditlog.read.all",
  "https://graph.microsoft.com/auditlog.read.all",
];
const MAX_EVENTS = 200;

/**
 * An agent's history, newest first: its grants (from the current grants), scope changes and
 * revocations (recorded scan over scan), and token activity from the activity log when the
 * connector can read it (demo sources always can; a real one needs the reports / audit-log scope).
 */
export async function getAgentTimeline(db: Db, { orgId, agentId }: { orgId: string; agentId: string }) {
  const agents = await listAgents(db, { orgId });
  const agent = agents.find((a) => a.id === agentId);
  if (!agent) throw notFound("Agent");
  const [connector] = await db
    .select({ mode: connectors.mode, config: connectors.config })
    .from(connectors)
    .where(and(eq(connectors.orgId, orgId), eq(connectors.id, agent.connectorId)));
  const activityAvailable = connector ? hasReportsScope(connector.mode, connector.config) : false;

  const [changes, activity, grants] = await Promise.all([
    db
      .select()
      .from(oauthGrantEvents)
      .where(and(eq(oauthGrantEvents.orgId, orgId), eq(oauthGrantEvents.clientId, agent.clientId)))
      .orderBy(desc(oauthGrantEvents.at))
      .limit(MAX_EVENTS),
    activityAvailable
      ? db
          .select()
          .from(activityEvents)
          .where(
            and(
              eq(activityEvents.orgId, orgId),
              eq(activityEvents.connectorId, agent.connectorId),
              inArray(activityEvents.kind, ["oauth_grant", "token"]),
              sql`(${activityEvents.target} = ${agent.clientId} OR ${activityEvents.resourceId} = ${agent.clientId} OR ${activityEvents.target} = ${agent.label})`,
            ),
          )
          .orderBy(desc(activityEvents.at))
          .limit(MAX_EVENTS)
      : Promise.resolve([]),
    db.execute<{ user_email: string; granted_at: Date | string; scopes: string[] }>(sql`
      SELECT user_email, granted_at, scopes FROM oauth_grants
      WHERE org_id = ${orgId} AND connector_id = ${agent.connectorId}
        AND (client_id = ${agent.clientId} OR external_id = ${agent.clientId})`),
  ]);
  const grantRows = ((grants as { rows?: unknown[] }).rows ?? grants) as Array<{
    user_email: string;
    granted_at: Date | string;
    scopes: string[];
  }>;
  const events = [
    ...grantRows.map((g) => ({
      kind: "grant" as const,
      at: new Date(g.granted_at).toISOString(),
      principal: g.user_email,
      detail: `granted ${g.scopes.length} scope${g.scopes.length === 1 ? "" : "s"}`,
      scopes: g.scopes,
    })),
    ...changes.map((c) => ({
      kind:
        c.kind === "scopes_changed"
          ? ("scope_change" as const)
          : c.kind === "revoked"
            ? ("revoked" as const)
            : ("grant" as const),
      at: c.at.toISOString(),
      principal: c.userEmail,
      detail:
        c.kind === "scopes_changed"
          ? `scopes changed: +${c.scopes.filter((s) => !c.previousScopes.includes(s)).length} −${c.previousScopes.filter((s) => !c.scopes.includes(s)).length}`
          : c.kind === "revoked"
            ? "grant removed"
            : `granted ${c.scopes.length} scopes`,
      scopes: c.scopes,
    })),
    ...activity.map((a) => ({
      kind: "token_activity" as const,
      at: a.at.toISOString(),
      principal: a.principal,
      detail: `${a.kind} × ${a.count}`,
      scopes: [] as string[],
    })),
  ];
  // A grant seen both as current and as a recorded "granted" change appears once.
  const seen = new Set<string>();
  const unique = events.filter((e) => {
    const key = `${e.kind}|${e.at}|${e.principal}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  unique.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : a.principal.localeCompare(b.principal)));
  return { agentId, activityAvailable, events: unique.slice(0, MAX_EVENTS) };
}

function hasReportsScope(mode: string, config: Record<string, unknown>): boolean {
  if (mode === "demo") return true;
  const scopes = Array.isArray(config.scopes) ? config.scopes : [];
  return scopes.some((s) => typeof s === "string" && REPORTS_SCOPES.includes(s.toLowerCase()));
}
