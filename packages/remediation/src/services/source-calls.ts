// The calls a remediation job makes to a source: under the connector's rate (a real source),
// riding out 429s, only while the lease lasts; the refusals as a step records them.
import { inArray } from "drizzle-orm";
import {
  SourceAuthError,
  SourceUnavailableError,
  SourceWriteError,
  type TSourceWriter,
} from "@posture/connectors";
import { connectors, type remediations, type Db } from "@posture/db";
import type { TJobQueue, TLogger, TRuntime } from "@posture/platform";
import type { TLease, TLeaseOptions } from "./lease";
import { createRateLimiter, rateFromEnv, sleep, type TRateLimiter } from "./rate";
import type { TStepRow } from "./store-sync";
import { writerFor as defaultWriterFor, type TConnectorRow, type TWriterFor } from "./writer";

/** A source's 429 on one step is waited out this many times; then the step fails with it. */
export const THROTTLE_RETRIES = 5;

export type TRemediationDeps = {
  db: Db;
  jobs: TJobQueue;
  runtime: TRuntime;
  log: TLogger;
  /** The writer of a connector's source (tests inject a fake). */
  writerFor?: TWriterFor;
  /** The per-connector bound on changes (a process-wide token bucket by default). */
  rate?: TRateLimiter;
  /** How a 429's Retry-After is waited (tests may shorten it). */
  wait?: (ms: number) => Promise<void>;
  /** The remediation lease's timings (services/lease.ts; tests shorten them). */
  lease?: TLeaseOptions;
};

export type TRemediationRow = typeof remediations.$inferSelect;
export type TStepError = { status: number | null; code: string; message: string };

let sharedRate: TRateLimiter | undefined;
/** The process's bucket per connector, shared by every job this process runs. */
export const rateOf = (deps: TRemediationDeps): TRateLimiter =>
  deps.rate ?? (sharedRate ??= createRateLimiter(rateFromEnv()));

/**
 * Lets the process's other work run between two steps: on embedded PGlite every statement
 * resolves without leaving the microtask queue, so a job that waits on no timer (an unrated
 * source) would hold the event loop for its whole run, with requests unread and the lease's
 * renewal timer late.
 */
export const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The source's refusal as a step records it. */
export function stepErrorOf(err: unknown): TStepError {
  if (err instanceof SourceWriteError) return { status: err.status, code: err.code, message: err.message };
  if (err instanceof SourceAuthError) return { status: 401, code: "source_auth", message: err.message };
  if (err instanceof SourceUnavailableError)
    return { status: null, code: "source_unavailable", message: err.message };
  return { status: null, code: "internal", message: err instanceof Error ? err.message : String(err) };
}

/**
 * Failures a later try of the job may not meet: a server error, the source away, credentials
 * refused. A refusal (403, 400…) and a 429 outlasting its retries are the step's outcome.
 */
export const retryable = (err: unknown) => !(err instanceof SourceWriteError) || err.status >= 500;

/**
 * The source a step changes: its writer, and whether its calls take the connector's tokens. A
 * demo connector's source is the sandbox's overlay in this service's own database, with no quota
 * to keep: its calls are bounded by the database alone (docs/decisions.md, "Remediation: the
 * apply in batches").
 */
export type TSourceOf = { connectorId: string; writer: TSourceWriter; rated: boolean };

/**
 * A source call under the connector's rate (a rated source), riding out the source's 429s (bounded), made only
 * while this worker holds the remediation's lease (checked before each try).
 */
export async function throttled<T>(
  deps: TRemediationDeps,
  lease: TLease,
  source: TSourceOf,
  call: () => Promise<T>,
): Promise<T> {
  const wait = deps.wait ?? sleep;
  for (let tries = 0; ; tries++) {
    if (source.rated) await rateOf(deps).take(source.connectorId);
    lease.check();
    try {
      return await call();
    } catch (err) {
      if (err instanceof SourceWriteError && err.status === 429 && tries < THROTTLE_RETRIES) {
        await wait(err.retryAfterMs ?? 1_000 * 2 ** tries);
        continue;
      }
      throw err;
    }
  }
}

/** The sources (writers) of the connectors a remediation's steps act on, built once per try. */
export async function writersOf(deps: TRemediationDeps, steps: readonly TStepRow[]) {
  const ids = [...new Set(steps.map((s) => s.connectorId))];
  const rows: TConnectorRow[] =
    ids.length === 0 ? [] : await deps.db.select().from(connectors).where(inArray(connectors.id, ids));
  const sources = new Map<string, TSourceOf>();
  for (const c of rows)
    sources.set(c.id, {
      connectorId: c.id,
      writer: (deps.writerFor ?? defaultWriterFor)(deps.db, c, deps.runtime),
      rated: c.mode !== "demo",
    });
  return (connectorId: string): TSourceOf => {
    const source = sources.get(connectorId);
    if (!source) throw new Error(`connector ${connectorId} is gone`);
    return source;
  };
}
