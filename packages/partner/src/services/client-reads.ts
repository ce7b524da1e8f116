import { and, eq, gt, sql } from "drizzle-orm";
import { auditLog, organizations, partnerAccess, type Db, type TPlanId } from "@posture/db";
import {
  AppError,
  asDataWrite,
  atLeast,
  audit,
  effectivePlan,
  managedBy,
  minimumPlanFor,
  PLANS,
  type TActor,
  type TDataWrites,
} from "@posture/platform";
import type { TClientRead, TClientReadName, TClientViewer } from "../client-reads";

/** One PARTNER_CLIENT_READ row per partner user, client and read within this window. */
export const CLIENT_READ_AUDIT_WINDOW_MINUTES = 15;

type TPartnerScope = {
  partnerOrgId: string;
  actor: TActor;
  viewer: TClientViewer;
  /** The visit's audit row is a write of the client (and so of its partner) for the read caches. */
  dataWrites?: TDataWrites;
};

/**
 * The client, if the partner may read it now (managed, consent not withdrawn: `managedBy`), with
 * its effective plan. Read on every request: a withdrawal takes effect on the next one.
 */
async function managedClient(db: Db, partnerOrgId: string, clientOrgId: string) {
  const [row] = await db
    .select({
      id: organizations.id,
      plan: organizations.plan,
      gracePlan: organizations.gracePlan,
      graceEndsAt: organizations.graceEndsAt,
    })
    .from(organizations)
    .innerJoin(partnerAccess, eq(partnerAccess.clientOrgId, organizations.id))
    .where(and(managedBy(partnerOrgId), eq(organizations.id, clientOrgId)))
    .limit(1);
  // Another partner's client, a client that withdrew, an unknown id: one answer.
  if (!row) throw new AppError("not_found", "Organization not found");
  return { id: row.id, plan: effectivePlan(row).plan };
}

/** The client procedure's plan gate, on the client's plan: a 402 that names it. */
function checkClientPlan(plan: TPlanId, gate: TClientRead["gate"]): void {
  if (gate?.plan && !atLeast(plan, gate.plan)) {
    throw new AppError(
      "plan_upgrade_required",
      `The client's plan (${plan}) does not include this; it needs the ${gate.plan} plan or higher`,
      { upgrade: { requiredPlan: gate.plan }, clientPlan: plan },
    );
  }
  if (gate?.feature && !PLANS[plan].features[gate.feature]) {
    throw new AppError(
      "plan_upgrade_required",
      `The client's plan (${plan}) does not include ${gate.feature}`,
      {
        upgrade: { feature: gate.feature, requiredPlan: minimumPlanFor(gate.feature) },
        clientPlan: plan,
      },
    );
  }
}

/**
 * Whether the CLIENT's audit trail already records this partner user's read within the window:
 * one PARTNER_CLIENT_READ row per partner user, client and read per window, so paging through
 * findings or polling a dashboard writes one row, not one per request (each row takes the client's
 * audit-chain lock). A range of the client's last minutes of audit rows (audit_log_org_created_idx).
 */
async function readRecorded(db: Db, s: TPartnerScope, clientOrgId: string, read: TClientReadName) {
  const [recent] = await db
    .select({ id: auditLog.id })
    .from(auditLog)
    .where(
      and(
        eq(auditLog.orgId, clientOrgId),
        gt(auditLog.createdAt, sql`now() - make_interval(mins => ${CLIENT_READ_AUDIT_WINDOW_MINUTES})`),
        eq(auditLog.action, "PARTNER_CLIENT_READ"),
        s.actor.userId === null ? sql`${auditLog.userId} is null` : eq(auditLog.userId, s.actor.userId),
        sql`${auditLog.metadata}->>'read' = ${read}`,
      ),
    )
    .limit(1);
  return recent !== undefined;
}

/**
 * One partner read of a managed client: 404 unless the partner may read it, the client's own plan
 * gate, then the client's own service as the client — and the read on the client's audit trail.
 */
export async function readClient<TOut>(
  db: Db,
  s: TPartnerScope,
  name: TClientReadName,
  read: Pick<TClientRead, "gate"> & {
    read: (db: Db, q: Record<string, unknown> & { orgId: string }, viewer: TClientViewer) => Promise<TOut>;
  },
  input: Record<string, unknown> & { orgId: string },
): Promise<TOut> {
  const { orgId, ...q } = input;
  const client = await managedClient(db, s.partnerOrgId, orgId);
  checkClientPlan(client.plan, read.gate);
  const [recorded, out] = await Promise.all([
    readRecorded(db, s, client.id, name),
    read.read(db, { ...q, orgId: client.id }, s.viewer),
  ]);
  // Written once the read succeeded and before it is answered: a refused read leaves no row, a
  // returned one always has its row. Two first reads at once may both write: more rows, never fewer.
  if (!recorded) {
    await asDataWrite(s.dataWrites, [client.id], () =>
      audit(
        db,
        { orgId: client.id, actor: s.actor },
        {
          action: "PARTNER_CLIENT_READ",
          target: s.partnerOrgId,
          metadata: { partnerOrgId: s.partnerOrgId, read: name },
        },
      ),
    );
  }
  return out;
}
