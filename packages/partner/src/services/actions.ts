import { and, count, desc, eq, inArray, isNull } from "drizzle-orm";
import {
  newId,
  partnerActions,
  partnerCampaigns,
  partnerDrift,
  partnerStandards,
  remediations,
  type Db,
} from "@posture/db";
import {
  AppError,
  audit,
  iso,
  managedClients,
  offsetPage,
  type TActor,
  type TJobQueue,
} from "@posture/platform";
import type { TActRefusal, TPlanOutcome, TPlanRemediation } from "../act-once";
import { campaignTargets, driftTargets, type TClientTarget } from "./action-targets";

/** Clients planned at once: each plan is a transaction of its own in its client. */
const PLAN_CONCURRENCY = 4;

/** One client's part of an action, as partner_actions.clients keeps it. */
export type TActionClient = {
  orgId: string;
  name: string;
  remediationId: string | null;
  status: string;
  error: TActRefusal | null;
  stepCount: number;
  predicted: { score: number; grade: string; scoreDelta: number } | null;
};

/** A client's part when nothing was planned there. */
export const SKIPPED = "SKIPPED";

export type TCreateAction = {
  partnerOrgId: string;
  actor: TActor;
  campaignId?: string | undefined;
  standardId?: string | undefined;
  rule?: string | undefined;
  clientOrgIds?: string[] | undefined;
};

export type TActionDeps = { planRemediation: TPlanRemediation; jobs: TJobQueue; publicUrl: string };

type TSource = {
  source: "campaign" | "standard";
  sourceId: string;
  affected: string[];
  targets: (clientOrgIds: string[]) => Promise<Map<string, TClientTarget>>;
};

async function loadSource(db: Db, input: TCreateAction): Promise<TSource> {
  if (input.campaignId !== undefined) {
    const [campaign] = await db
      .select()
      .from(partnerCampaigns)
      .where(
        and(eq(partnerCampaigns.id, input.campaignId), eq(partnerCampaigns.partnerOrgId, input.partnerOrgId)),
      );
    if (!campaign) throw new AppError("not_found", "Campaign not found");
    return {
      source: "campaign",
      sourceId: campaign.id,
      affected: campaign.clientOrgIds,
      targets: (ids) => campaignTargets(db, campaign, ids),
    };
  }
  const standardId = input.standardId ?? "";
  const [standard] = await db
    .select({ id: partnerStandards.id, trustedDomains: partnerStandards.trustedDomains })
    .from(partnerStandards)
    .where(and(eq(partnerStandards.id, standardId), eq(partnerStandards.partnerOrgId, input.partnerOrgId)));
  if (!standard) throw new AppError("not_found", "Standard not found");
  const drift = await db
    .select({ clientOrgId: partnerDrift.clientOrgId, rule: partnerDrift.rule })
    .from(partnerDrift)
    .where(
      and(
        eq(partnerDrift.standardId, standard.id),
        eq(partnerDrift.partnerOrgId, input.partnerOrgId),
        isNull(partnerDrift.resolvedAt),
        input.rule === undefined ? undefined : eq(partnerDrift.rule, input.rule),
      ),
    )
    .orderBy(partnerDrift.clientOrgId, partnerDrift.rule);
  return {
    source: "standard",
    sourceId: standard.id,
    affected: [...new Set(drift.map((d) => d.clientOrgId))],
    targets: (ids) => driftTargets(db, standard, drift, ids),
  };
}

/** Runs `fn` over `items`, at most `n` at a time, keeping the order. */
async function inBatches<T, R>(items: readonly T[], n: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += n) out.push(...(await Promise.all(items.slice(i, i + n).map(fn))));
  return out;
}

/**
 * POST /partner/actions: one remediation per affected client, planned by the engine in each (its
 * audit row and `remediation.planned` there; its approval rules decide who approves). The
 * clients are the source's, among those the partner may act on (managed, consent not withdrawn);
 * `clientOrgIds` narrows them, and one the partner may not act on is 404 like an unknown id.
 * The action and its audit row are written in the partner organization once every client is planned.
 */
export async function createAction(db: Db, input: TCreateAction, deps: TActionDeps) {
  if ((input.campaignId === undefined) === (input.standardId === undefined))
    throw new AppError("invalid_input", "Give exactly one of campaignId and standardId", {
      details: [{ path: "campaignId", message: "exactly one of campaignId and standardId" }],
    });
  if (input.rule !== undefined && input.standardId === undefined)
    throw new AppError("invalid_input", "rule goes with standardId", {
      details: [{ path: "rule", message: "only with standardId" }],
    });
  const source = await loadSource(db, input);
  const affected = new Set(source.affected);
  let clients;
  if (input.clientOrgIds !== undefined) {
    const asked = [...new Set(input.clientOrgIds)];
    clients = await managedClients(db, input.partnerOrgId, asked);
    if (clients.length !== asked.length) throw new AppError("not_found", "Organization not found");
  } else {
    clients = await managedClients(db, input.partnerOrgId, [...affected]);
    if (clients.length === 0)
      throw new AppError(
        "invalid_input",
        source.source === "campaign"
          ? "Nothing to do: no client the partner may act on is in this campaign"
          : "Nothing to do: no client the partner may act on drifts from this standard",
      );
  }
  const targets = await source.targets(clients.filter((c) => affected.has(c.id)).map((c) => c.id));
  const id = newId("pac");
  const results = await inBatches(clients, PLAN_CONCURRENCY, async (c): Promise<TActionClient> => {
    const base = { orgId: c.id, name: c.name, stepCount: 0, predicted: null };
    const refused = (error: TActRefusal) => ({ ...base, remediationId: null, status: SKIPPED, error });
    const t = targets.get(c.id);
    if (!affected.has(c.id) || t === undefined)
      return refused({
        code: "not_affected",
        message: `This client is not in the ${source.source === "campaign" ? "campaign" : "standard's drift"}`,
      });
    if ("refusal" in t) return refused(t.refusal);
    const outcome = await deps
      .planRemediation(
        db,
        {
          partnerOrgId: input.partnerOrgId,
          actor: input.actor,
          clientOrgId: c.id,
          partnerActionId: id,
          target: t.target,
        },
        { jobs: deps.jobs, publicUrl: deps.publicUrl },
      )
      // One client's failure (its data, a lock) must not strand the plans already made in others.
      .catch((): TPlanOutcome => ({
        ok: false,
        error: { code: "internal_error", message: "Planning failed in this client; act again for it" },
      }));
    if (!outcome.ok) return refused(outcome.error);
    return {
      ...base,
      remediationId: outcome.remediationId,
      status: outcome.status,
      error: null,
      stepCount: outcome.steps,
      predicted: outcome.predicted,
    };
  });
  const row = await db.transaction(async (tx) => {
    const [inserted] = await tx
      .insert(partnerActions)
      .values({
        id,
        partnerOrgId: input.partnerOrgId,
        source: source.source,
        sourceId: source.sourceId,
        createdByUserId: input.actor.userId,
        createdByEmail: input.actor.email,
        clients: results,
      })
      .returning();
    if (!inserted) throw new Error("partner action insert returned no row");
    await audit(
      tx,
      { orgId: input.partnerOrgId, actor: input.actor },
      {
        action: "PARTNER_ACTION_CREATED",
        target: id,
        metadata: {
          source: source.source,
          sourceId: source.sourceId,
          ...(input.rule === undefined ? {} : { rule: input.rule }),
          planned: results.filter((r) => r.remediationId !== null).map((r) => r.orgId),
          skipped: results.filter((r) => r.remediationId === null).map((r) => r.orgId),
        },
      },
    );
    return inserted;
  });
  return actionView(row, results);
}

type TActionRow = typeof partnerActions.$inferSelect;

const storedClients = (row: TActionRow): TActionClient[] =>
  Array.isArray(row.clients) ? (row.clients as TActionClient[]) : [];

function actionView(row: TActionRow, clients: TActionClient[]) {
  return {
    id: row.id,
    source: row.source,
    sourceId: row.sourceId,
    createdBy: row.createdByEmail,
    createdAt: iso(row.createdAt),
    clients,
  };
}

/** GET /partner/actions: newest first, with each action's counts as planned. */
export async function listActions(db: Db, input: { partnerOrgId: string; limit: number; offset: number }) {
  const where = eq(partnerActions.partnerOrgId, input.partnerOrgId);
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(partnerActions)
      .where(where)
      .orderBy(desc(partnerActions.createdAt), desc(partnerActions.id))
      .limit(input.limit)
      .offset(input.offset),
    db.select({ n: count() }).from(partnerActions).where(where),
  ]);
  return offsetPage(
    rows.map((r) => {
      const clients = storedClients(r);
      return {
        id: r.id,
        source: r.source,
        sourceId: r.sourceId,
        createdBy: r.createdByEmail,
        createdAt: iso(r.createdAt),
        clientCount: clients.length,
        plannedCount: clients.filter((c) => c.remediationId !== null).length,
      };
    }),
    { total: total?.n ?? 0, limit: input.limit, offset: input.offset },
  );
}

/**
 * GET /partner/actions/{id}: each client's part with its remediation's status now (approved,
 * applied… in the client). A client the partner may no longer act on (consent withdrawn, no
 * longer managed) is left out; another partner's action is 404.
 */
export async function getAction(db: Db, input: { partnerOrgId: string; id: string }) {
  const [row] = await db
    .select()
    .from(partnerActions)
    .where(and(eq(partnerActions.id, input.id), eq(partnerActions.partnerOrgId, input.partnerOrgId)));
  if (!row) throw new AppError("not_found", "Action not found");
  const stored = storedClients(row);
  const reachable = await managedClients(
    db,
    input.partnerOrgId,
    stored.map((c) => c.orgId),
  );
  const names = new Map(reachable.map((c) => [c.id, c.name]));
  const visible = stored.filter((c) => names.has(c.orgId));
  const planIds = visible.map((c) => c.remediationId).filter((x): x is string => x !== null);
  const live =
    planIds.length === 0
      ? []
      : await db
          .select({ id: remediations.id, orgId: remediations.orgId, status: remediations.status })
          .from(remediations)
          .where(and(inArray(remediations.id, planIds), eq(remediations.partnerActionId, row.id)));
  const statusOf = new Map(live.map((r) => [`${r.orgId}\0${r.id}`, r.status]));
  return actionView(
    row,
    visible.map((c) => ({
      ...c,
      name: names.get(c.orgId) ?? c.name,
      status:
        c.remediationId === null ? c.status : (statusOf.get(`${c.orgId}\0${c.remediationId}`) ?? c.status),
    })),
  );
}
