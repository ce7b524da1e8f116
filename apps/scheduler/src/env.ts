import { z } from "zod";
import type { TQueueLimits, TQueueName } from "@posture/jobs";
import { parseEnv, ZLogLevel } from "@posture/platform";

// The only place that reads process.env for the scheduler process.
const ZEnv = z.object({
  REDIS_URL: z.string().url(),
  DATABASE_URL: z.string().url(),
  /** Every database statement is cancelled past this (0: never); scan persistence raises its own. */
  DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).default(5_000),
  MIGRATION_DATABASE_URL: z.string().url().optional(),
  AUDIT_HMAC_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/)
    .optional(),
  // Decrypts what the gateway encrypted (source credentials, webhook secrets): the same key.
  ENCRYPTION_KEY: z.string().min(1),
  /** Signs evidence manifests (PKCS#8 PEM or private JWK, Ed25519); unset: derived from ENCRYPTION_KEY, as the gateway does. */
  EVIDENCE_SIGNING_KEY: z.string().optional(),
  EVIDENCE_SIGNING_KEYS_PREVIOUS: z.string().optional(),
  PUBLIC_URL: z.string().url().default("http://localhost:3000"),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: z.enum(["true", "false"]).default("false"),
  /** Redis key prefix of the job queue; the gateway must use the same one. */
  JOBS_PREFIX: z.string().min(1).default("jobs"),
  /**
   * Workers per kind of work (each kind has a queue of its own, see docs/operations.md), and how
   * many of them one organization may hold at once. SCHEDULER_CONCURRENCY is the older name of
   * JOBS_SCANS_CONCURRENCY, still read when the new one is unset.
   */
  SCHEDULER_CONCURRENCY: z.coerce.number().int().min(1).max(256).optional(),
  JOBS_SCANS_CONCURRENCY: z.coerce.number().int().min(1).max(256).optional(),
  JOBS_SCANS_PER_ORG: z.coerce.number().int().min(1).max(256).default(2),
  JOBS_DELIVERIES_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
  JOBS_DELIVERIES_PER_ORG: z.coerce.number().int().min(1).max(256).default(2),
  JOBS_REPORTS_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(2),
  JOBS_MAINTENANCE_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(2),
  /** How often the scheduler checks that Redis still holds every periodic schedule (re-adds lost ones). */
  JOBS_SCHEDULE_CHECK_MS: z.coerce.number().int().min(100).default(30_000),
  /**
   * The orchestrator's stop grace: a shutdown waits for running jobs until just before it, then
   * leaves them to another worker (default 25 s). SHUTDOWN_TIMEOUT_MS is its older name.
   */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).optional(),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).optional(),
  LOG_LEVEL: ZLogLevel,
  /** Prometheus metrics (job durations, queue depth, DB pool) on this port; unset: none. */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  METRICS_HOST: z.string().default("0.0.0.0"),
  METRICS_TOKEN: z.string().min(16).optional(),
});

export type TEnv = z.infer<typeof ZEnv>;

/** Each queue's worker limits, from the env. */
export function queueLimits(env: TEnv): Record<TQueueName, TQueueLimits> {
  return {
    scans: {
      concurrency: env.JOBS_SCANS_CONCURRENCY ?? env.SCHEDULER_CONCURRENCY ?? 4,
      perOrg: env.JOBS_SCANS_PER_ORG,
    },
    deliveries: { concurrency: env.JOBS_DELIVERIES_CONCURRENCY, perOrg: env.JOBS_DELIVERIES_PER_ORG },
    reports: { concurrency: env.JOBS_REPORTS_CONCURRENCY },
    maintenance: { concurrency: env.JOBS_MAINTENANCE_CONCURRENCY },
  };
}

/** The declared stop grace (SHUTDOWN_GRACE_MS, else its older name, else 25 s). */
export function shutdownGraceMs(env: Pick<TEnv, "SHUTDOWN_GRACE_MS" | "SHUTDOWN_TIMEOUT_MS">): number {
  return env.SHUTDOWN_GRACE_MS ?? env.SHUTDOWN_TIMEOUT_MS ?? 25_000;
}

export function readEnv(source: NodeJS.ProcessEnv = process.env): TEnv {
  return parseEnv(ZEnv, source);
}
