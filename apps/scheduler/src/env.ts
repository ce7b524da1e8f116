import { z } from "zod";
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
  PUBLIC_URL: z.string().url().default("http://localhost:3000"),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: z.enum(["true", "false"]).default("false"),
  /** Redis key prefix of the job queue; the gateway must use the same one. */
  JOBS_PREFIX: z.string().min(1).default("jobs"),
  SCHEDULER_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(4),
  /** How long a shutdown waits for running jobs before leaving them to another worker. */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).default(25_000),
  LOG_LEVEL: ZLogLevel,
  /** Prometheus metrics (job durations, queue depth, DB pool) on this port; unset: none. */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  METRICS_HOST: z.string().default("0.0.0.0"),
  METRICS_TOKEN: z.string().min(16).optional(),
});

export type TEnv = z.infer<typeof ZEnv>;

export function readEnv(source: NodeJS.ProcessEnv = process.env): TEnv {
  return parseEnv(ZEnv, source);
}
