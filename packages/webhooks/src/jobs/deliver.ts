import { setTimeout as sleep } from "node:timers/promises";
import { and, eq, inArray, isNull, ne, sql } from "drizzle-orm";
import type { PgUpdateSetSource } from "drizzle-orm/pg-core";
import {
  events,
  organizations,
  partnerAccess,
  webhookDeliveries,
  webhookDeliveryAttempts,
  webhookSubscriptions,
  type Db,
} from "@posture/db";
import {
  decryptSecret,
  iso,
  TargetRefusedError,
  vetTarget,
  type TJobQueue,
  type TLogger,
  type TResolver,
  type TRuntime,
} from "@posture/platform";
import { DELIVER_JOB } from "../services/emit-event";
import { DEFAULT_TIMEOUT_MS, sendWebhook, type TSendResult } from "../send";
import { buildPayload, signedHeaders } from "../signing";
import { defaultBackoff, type TBackoff } from "./backoff";

export type TDeliverDeps = {
  db: Db;
  runtime: TRuntime;
  jobs: TJobQueue;
  log: TLogger;
  /** Wait after n failed attempts, or null to give up; default: the ~3-day jittered schedule. */
  backoff?: TBackoff;
  resolve?: TResolver;
  timeoutMs?: number;
  /**
   * How long an attempt's outcome is retried against the database (an outage mid-attempt) before
   * it is handed to a job of its own, retried until the database is back. Default 10 s.
   */
  recordBudgetMs?: number;
};

/** Records an attempt whose outcome could not be written when it was made. */
export const RECORD_JOB = "webhook.record-attempt";

export type TDeliverOutcome =
  | "missing"
  | "already-final"
  | "not-due"
  | "lost-race"
  | "subscription-disabled"
  | "client-withdrawn"
  | "delivered"
  | "gone"
  | "retry-scheduled"
  | "abandoned"
  | "record-deferred";

// Due-ness is judged on the database clock, the one clock every gateway and worker shares.
// A job that fires a little early still counts as due.
const isDue = sql<boolean>`(${webhookDeliveries.nextAttemptAt} is null or ${webhookDeliveries.nextAttemptAt} <= now() + interval '2 seconds')`;
// While an attempt is in flight its row looks "not due", so a duplicate job backs off; a
// crashed attempt becomes due again after this and the sweep re-queues it.
const LEASE_MARGIN_MS = 5_000;

const fromNow = (ms: number) => sql`now() + ${ms / 1000}::double precision * interval '1 second'`;

const OPEN_STATUSES = ["pending", "failed"] as const;

async function loadDelivery(db: Db, deliveryId: string) {
  const [row] = await db
    .select({
      id: webhookDeliveries.id,
      status: webhookDeliveries.status,
      attempts: webhookDeliveries.attempts,
      redeliveryRequested: webhookDeliveries.redeliveryRequested,
      due: isDue,
      event: webhookDeliveries.event,
      eventId: events.id,
      eventData: events.data,
      eventCreatedAt: events.createdAt,
      eventOrgId: events.orgId,
      deliveryOrgId: webhookDeliveries.orgId,
      // A client's event delivered to its partner (issue 17): the client's name now, while its
      // consent stands (null once withdrawn or no longer managed).
      clientName: organizations.name,
      subscriptionId: webhookSubscriptions.id,
      subscriptionStatus: webhookSubscriptions.status,
      url: webhookSubscriptions.url,
      secretEnc: webhookSubscriptions.secretEnc,
      // The rotated-out secret, only while its overlap window runs (judged on the database clock).
      previousSecretEnc: sql<
        string | null
      >`case when ${webhookSubscriptions.previousSecretExpiresAt} > now() then ${webhookSubscriptions.previousSecretEnc} end`,
    })
    .from(webhookDeliveries)
    .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
    .innerJoin(webhookSubscriptions, eq(webhookSubscriptions.id, webhookDeliveries.subscriptionId))
    .leftJoin(
      partnerAccess,
      and(
        ne(events.orgId, webhookDeliveries.orgId),
        eq(partnerAccess.clientOrgId, events.orgId),
        eq(partnerAccess.partnerOrgId, webhookDeliveries.orgId),
        isNull(partnerAccess.withdrawnAt),
      ),
    )
    .leftJoin(
      organizations,
      and(
        eq(organizations.id, partnerAccess.clientOrgId),
        eq(organizations.managedByOrgId, partnerAccess.partnerOrgId),
      ),
    )
    .where(eq(webhookDeliveries.id, deliveryId));
  return row;
}

type TDelivery = NonNullable<Awaited<ReturnType<typeof loadDelivery>>>;
/** What recording an attempt's outcome needs of its delivery. */
type TDeliveryRef = { id: string; subscriptionId: string };

/** Counts the attempt and takes a short lease, unless another run got there first. */
async function claimAttempt(db: Db, d: TDelivery, leaseMs: number): Promise<number | null> {
  const [row] = await db
    .update(webhookDeliveries)
    .set({
      attempts: sql`${webhookDeliveries.attempts} + 1`,
      nextAttemptAt: fromNow(leaseMs),
      redeliveryRequested: false,
    })
    .where(
      and(
        eq(webhookDeliveries.id, d.id),
        eq(webhookDeliveries.attempts, d.attempts),
        eq(webhookDeliveries.redeliveryRequested, d.redeliveryRequested),
        inArray(webhookDeliveries.status, [...OPEN_STATUSES]),
        isDue,
      ),
    )
    .returning({ attempts: webhookDeliveries.attempts });
  return row?.attempts ?? null;
}

async function attempt(
  deps: TDeliverDeps,
  d: TDelivery,
  attemptNo: number,
  timeoutMs: number,
): Promise<TSendResult> {
  const started = Date.now();
  let target;
  try {
    // Vetted again on every attempt: what a name resolves to may have changed since creation.
    target = await vetTarget(d.url, {
      allowPrivateTargets: deps.runtime.webhookAllowPrivateTargets,
      resolve: deps.resolve ?? deps.runtime.outboundResolver,
      timeoutMs,
    });
  } catch (err) {
    if (err instanceof TargetRefusedError)
      return { statusCode: null, error: `target refused: ${err.message}` };
    throw err;
  }
  const secret = decryptSecret(deps.runtime.encryptionKey, d.secretEnc);
  const previousSecret = d.previousSecretEnc
    ? decryptSecret(deps.runtime.encryptionKey, d.previousSecretEnc)
    : null;
  const body = buildPayload({
    event: d.event,
    dataJson: d.eventData,
    eventId: d.eventId,
    createdAt: d.eventCreatedAt,
    client: d.clientName === null ? null : { orgId: d.eventOrgId, name: d.clientName },
  });
  const headers = signedHeaders({
    secret,
    previousSecret,
    body,
    event: d.event,
    eventId: d.eventId,
    deliveryId: d.id,
    timestamp: Math.floor(Date.now() / 1000),
  });
  deps.log.debug({ deliveryId: d.id, attempt: attemptNo }, "webhook attempt");
  // Resolution and the exchange share one budget.
  return sendWebhook(target, body, headers, Math.max(1, timeoutMs - (Date.now() - started)), timeoutMs);
}

function describeFailure(result: TSendResult): string {
  if (result.statusCode === null) return result.error;
  if (result.statusCode >= 300 && result.statusCode < 400) {
    return `receiver answered HTTP ${result.statusCode}; redirects are not followed`;
  }
  return `receiver answered HTTP ${result.statusCode}`;
}

type TAttemptLog = {
  attempt: number;
  manual: boolean;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
};

/**
 * Records the attempt's outcome on the delivery and appends it to the attempt log, in one
 * transaction. Nothing is written if the row is no longer ours (its subscription was deleted).
 */
async function settle(
  db: Db,
  d: TDeliveryRef,
  log: TAttemptLog,
  error: string | null,
  outcome: PgUpdateSetSource<typeof webhookDeliveries>,
): Promise<void> {
  await db.transaction(async (tx) => {
    const [row] = await tx
      .update(webhookDeliveries)
      .set(outcome)
      .where(ours(d, log.attempt))
      .returning({ orgId: webhookDeliveries.orgId });
    // An attempt made is logged even when a later one has claimed the row meanwhile (its outcome
    // recorded late, after a database outage); only a deleted delivery takes its log with it.
    const orgId =
      row?.orgId ??
      (
        await tx
          .select({ orgId: webhookDeliveries.orgId })
          .from(webhookDeliveries)
          .where(eq(webhookDeliveries.id, d.id))
      )[0]?.orgId;
    if (!orgId) return;
    // Written once per attempt, however often its recording is retried.
    await tx
      .insert(webhookDeliveryAttempts)
      .values({ orgId, deliveryId: d.id, ...log, error })
      .onConflictDoNothing();
  });
}

/** Whether the row is still ours to write: the attempt we claimed, still open. */
const ours = (d: TDeliveryRef, attempts: number) =>
  and(
    eq(webhookDeliveries.id, d.id),
    eq(webhookDeliveries.attempts, attempts),
    inArray(webhookDeliveries.status, [...OPEN_STATUSES]),
  );

/**
 * One run of the "webhook.deliver" job. Idempotent: a delivered or abandoned delivery, a
 * delivery whose next attempt is not due, or one another run just claimed, is left alone.
 */
export async function deliverWebhook(deps: TDeliverDeps, deliveryId: string): Promise<TDeliverOutcome> {
  const { db } = deps;
  const d = await loadDelivery(db, deliveryId);
  // Deleting a subscription deletes its deliveries: nothing to send.
  if (!d) return "missing";
  if (d.status === "delivered" || d.status === "abandoned") return "already-final";
  if (d.subscriptionStatus !== "active") {
    await db
      .update(webhookDeliveries)
      .set({ status: "abandoned", lastError: "subscription disabled", nextAttemptAt: null })
      .where(and(eq(webhookDeliveries.id, d.id), inArray(webhookDeliveries.status, [...OPEN_STATUSES])));
    return "subscription-disabled";
  }
  if (d.eventOrgId !== d.deliveryOrgId && d.clientName === null) {
    // A client's event for its partner, and the client withdrew its consent meanwhile: not sent.
    await db
      .update(webhookDeliveries)
      .set({
        status: "abandoned",
        lastError: "the client withdrew the partner's access",
        nextAttemptAt: null,
      })
      .where(and(eq(webhookDeliveries.id, d.id), inArray(webhookDeliveries.status, [...OPEN_STATUSES])));
    return "client-withdrawn";
  }
  if (!d.due) return "not-due";

  const timeoutMs = deps.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const attempts = await claimAttempt(db, d, timeoutMs + LEASE_MARGIN_MS);
  if (attempts === null) return "lost-race";

  const startedAt = new Date();
  let result: TSendResult;
  try {
    result = await attempt(deps, d, attempts, timeoutMs);
  } catch (err) {
    deps.log.error({ err, deliveryId: d.id }, "webhook attempt failed unexpectedly");
    result = { statusCode: null, error: "internal error while sending" };
  }
  const log: TAttemptLog = {
    attempt: attempts,
    manual: d.redeliveryRequested,
    startedAt,
    durationMs: Date.now() - startedAt.getTime(),
    statusCode: result.statusCode,
  };
  return recordDurably(deps, { id: d.id, subscriptionId: d.subscriptionId }, log, result);
}

/**
 * Records an attempt's outcome. The receiver has had its request: the attempt must be logged even
 * if the database is away just now. Tried again for `recordBudgetMs`; then handed to a job of its
 * own (the queue lives in Redis) that retries until the database is back.
 */
async function recordDurably(
  deps: TDeliverDeps,
  d: TDeliveryRef,
  log: TAttemptLog,
  result: TSendResult,
): Promise<TDeliverOutcome> {
  const deadline = Date.now() + (deps.recordBudgetMs ?? 10_000);
  for (let pause = 200; ; pause = Math.min(pause * 2, 2_000)) {
    try {
      return await recordOutcome(deps, d, log, result);
    } catch (err) {
      if (Date.now() + pause > deadline) {
        deps.log.warn(
          { err, deliveryId: d.id, attempt: log.attempt },
          "webhook attempt not recorded yet; queued its recording",
        );
        await deps.jobs.enqueue(RECORD_JOB, toRecordJob(d, log, result), {
          jobId: `${d.id}-record-${log.attempt}`,
        });
        return "record-deferred";
      }
      await sleep(pause);
    }
  }
}

export type TRecordJob = {
  deliveryId: string;
  subscriptionId: string;
  log: Omit<TAttemptLog, "startedAt"> & { startedAt: string };
  result: TSendResult;
};

const toRecordJob = (d: TDeliveryRef, log: TAttemptLog, result: TSendResult): TRecordJob => ({
  deliveryId: d.id,
  subscriptionId: d.subscriptionId,
  log: { ...log, startedAt: log.startedAt.toISOString() },
  result,
});

/** The RECORD_JOB handler: the outcome of an attempt made while the database was away. */
export function recordDeferredAttempt(deps: TDeliverDeps, job: TRecordJob): Promise<TDeliverOutcome> {
  return recordOutcome(
    deps,
    { id: job.deliveryId, subscriptionId: job.subscriptionId },
    { ...job.log, startedAt: new Date(job.log.startedAt) },
    job.result,
  );
}

/** Writes the outcome and schedules what follows (the next try, or nothing). Idempotent. */
async function recordOutcome(
  deps: TDeliverDeps,
  d: TDeliveryRef,
  log: TAttemptLog,
  result: TSendResult,
): Promise<TDeliverOutcome> {
  const { db } = deps;
  const attempts = log.attempt;
  const now = new Date();

  if (result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300) {
    await settle(db, d, log, null, {
      status: "delivered",
      deliveredAt: now,
      lastStatusCode: result.statusCode,
      lastError: null,
      nextAttemptAt: null,
    });
    return "delivered";
  }

  if (result.statusCode === 410) {
    // The receiver says the endpoint is gone for good: stop this and every later delivery.
    const lastError = "receiver answered HTTP 410 Gone; subscription disabled";
    await db.transaction(async (tx) => {
      await tx
        .update(webhookSubscriptions)
        .set({ status: "disabled", disabledReason: `receiver answered 410 Gone at ${iso(now)}` })
        .where(eq(webhookSubscriptions.id, d.subscriptionId));
      await settle(tx, d, log, lastError, {
        status: "abandoned",
        lastStatusCode: 410,
        lastError,
        nextAttemptAt: null,
      });
    });
    deps.log.info({ subscriptionId: d.subscriptionId }, "webhook subscription disabled after 410");
    return "gone";
  }

  const lastError = describeFailure(result);
  const delayMs = (deps.backoff ?? defaultBackoff)(attempts);
  if (delayMs === null) {
    await settle(db, d, log, lastError, {
      status: "abandoned",
      lastStatusCode: result.statusCode,
      lastError,
      nextAttemptAt: null,
    });
    return "abandoned";
  }
  await settle(db, d, log, lastError, {
    status: "failed",
    lastStatusCode: result.statusCode,
    lastError,
    nextAttemptAt: fromNow(delayMs),
  });
  await deps.jobs.enqueue(DELIVER_JOB, { deliveryId: d.id }, { jobId: `${d.id}-${attempts + 1}`, delayMs });
  return "retry-scheduled";
}
