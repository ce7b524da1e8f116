import { and, desc, eq, or, sql, type SQL } from "drizzle-orm";
import {
  arrayLiteral,
  type flowEdges,
  flowNodes,
  flowSummaries,
  queryRows,
  workspaceUsers,
  type Db,
} from "@posture/db";
import { notFound, offsetMeta } from "@posture/platform";

type TGraphQuery = { orgId: string; limit: number; offset: number; domain?: string; userId?: string };

/**
 * One page of the external data-flow graph: nodes riskiest first (ties by id, a total order on
 * an index, so pages never overlap), and only the edges whose both ends are on the page.
 */
export async function getFlowGraph(db: Db, q: TGraphQuery) {
  const filter = await filterOf(db, q);
  const where = and(eq(flowNodes.orgId, q.orgId), filter);
  const [nodes, summaryRows] = await Promise.all([
    db
      .select({
        id: flowNodes.id,
        type: flowNodes.type,
        label: flowNodes.label,
        riskScore: flowNodes.riskScore,
      })
      .from(flowNodes)
      .where(where)
      .orderBy(desc(flowNodes.riskScore), desc(flowNodes.id))
      .limit(q.limit)
      .offset(q.offset),
    db.select().from(flowSummaries).where(eq(flowSummaries.orgId, q.orgId)),
  ]);
  const summary = summaryRows[0];
  const totalNodes = filter ? await countNodes(db, where) : (summary?.totalNodes ?? 0);
  const edges =
    nodes.length === 0
      ? []
      : await edgesWithin(
          db,
          q.orgId,
          nodes.map((n) => n.id),
        );
  edges.sort((a, b) =>
    a.source === b.source ? (a.target < b.target ? -1 : 1) : a.source < b.source ? -1 : 1,
  );
  const page = offsetMeta(totalNodes, q.limit, q.offset);
  return {
    nodes,
    edges: edges.map((e) => ({ id: `${e.source}->${e.target}`, ...e })),
    summary: {
      externalFiles: summary?.externalFiles ?? 0,
      publicLinks: summary?.publicLinks ?? 0,
      sharedDrivesExposed: summary?.sharedDrivesExposed ?? 0,
      riskScore: summary?.riskScore ?? 0,
    },
    // The offset envelope under the graph's own names (`totalNodes`).
    metadata: { limit: page.limit, offset: page.offset, totalNodes, nextOffset: page.nextOffset },
  };
}

type TEdge = Pick<typeof flowEdges.$inferSelect, "source" | "target" | "scope" | "severity">;

/**
 * The edges whose both ends are among `ids` (a page of up to 500 nodes): the edges of each node on
 * the page, by index, kept when their target is on the page too. The page travels as one array;
 * as two 500-item IN lists it cost ~10 ms of planning alone, and the planner, unable to see that
 * 500 index probes beat reading every edge, scanned the whole table (OFFSET 0 keeps the lateral
 * subquery a per-node index probe).
 */
async function edgesWithin(db: Db, orgId: string, ids: readonly string[]): Promise<TEdge[]> {
  const page = arrayLiteral(ids);
  return queryRows<TEdge>(
    db,
    sql`SELECT e.source, e.target, e.scope, e.severity
      FROM unnest(${page}::text[]) AS p(id)
      CROSS JOIN LATERAL (
        SELECT source, target, scope, severity FROM flow_edges
        WHERE org_id = ${orgId} AND source = p.id OFFSET 0) e
      WHERE e.target = ANY(${page}::text[])`,
  );
}

async function countNodes(db: Db, where: SQL | undefined): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(flowNodes)
    .where(where);
  return row?.n ?? 0;
}

/**
 * `domain`: the outside domain, the files and drives reaching it and the users sharing those
 * files. `userId` (a workspace user id or e-mail): the user, their shared files and public links,
 * and the outside domains those files reach.
 */
async function filterOf(db: Db, q: TGraphQuery): Promise<SQL | undefined> {
  if (q.domain) {
    const d = q.domain.toLowerCase();
    return or(
      eq(flowNodes.id, `external:${d}`),
      sql`${d} = ANY(${flowNodes.domains})`,
      sql`(${flowNodes.type} = 'user' AND ${flowNodes.ownerEmail} IN (
        SELECT owner_email FROM flow_nodes WHERE org_id = ${q.orgId} AND type = 'file' AND ${d} = ANY(domains)))`,
    );
  }
  if (q.userId) {
    const email = await userEmail(db, q.orgId, q.userId);
    return or(
      eq(flowNodes.ownerEmail, email),
      sql`${flowNodes.id} IN (SELECT 'external:' || unnest(domains) FROM flow_nodes
        WHERE org_id = ${q.orgId} AND type = 'file' AND owner_email = ${email})`,
    );
  }
  return undefined;
}

async function userEmail(db: Db, orgId: string, userId: string): Promise<string> {
  const key = userId.toLowerCase();
  const [row] = await db
    .select({ email: workspaceUsers.email })
    .from(workspaceUsers)
    .where(
      and(
        eq(workspaceUsers.orgId, orgId),
        key.includes("@") ? eq(workspaceUsers.email, key) : eq(workspaceUsers.id, userId),
      ),
    )
    .limit(1);
  if (!row) throw notFound("User");
  return row.email;
}
