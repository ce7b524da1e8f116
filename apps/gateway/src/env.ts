import { z } from "zod";
import { DEFAULT_REQUEST_TIMEOUT_MS } from "@posture/db";
import { parseEnv, ZLogLevel } from "@posture/platform";

// The only place that reads process.env for the gateway (and the combined `pnpm start`).
const ZEnv = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default("0.0.0.0"),
  DATABASE_URL: z.string().url().optional(),
  /** The owner role's URL for migrations; DATABASE_URL is then the application's role. */
  MIGRATION_DATABASE_URL: z.string().url().optional(),
  /** Keys the audit chain (64 hex); derived from ENCRYPTION_KEY when unset. */
  AUDIT_HMAC_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/)
    .optional(),
  DATA_DIR: z.string().default(".data"),
  /**
   * The bound of an interactive request's every query (0: the pool's bounds below): the client
   * gives up and answers 503 past it, the server cancels a quarter earlier (at most 1 s sooner).
   * Downloads (reports, exports, evidence packages, PDFs) and jobs keep the pool's bounds.
   */
  DB_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(0).default(DEFAULT_REQUEST_TIMEOUT_MS),
  /** `statement_timeout` of the pool's sessions: downloads and jobs; 0: never. */
  DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).default(5_000),
  /**
   * The client-side bound of the pool's queries (0: none): a database that does not answer at all
   * is a 503 after this long. Default: DB_STATEMENT_TIMEOUT_MS + 1000 (the server cancels first).
   */
  DB_QUERY_TIMEOUT_MS: z.coerce.number().int().min(0).optional(),
  REDIS_URL: z.string().url().optional(),
  /** How long a request waits for Redis (rate limits, credential epochs) before counting in memory. */
  RATE_LIMIT_REDIS_TIMEOUT_MS: z.coerce.number().int().min(1).max(5_000).default(75),
  /** The read cache's bound per process (MB of bodies, compressed variants included); 0 turns it off. */
  READ_CACHE_MAX_MB: z.coerce.number().int().min(0).max(4_096).default(64),
  /** The longest a cached answer is served (ms), whatever the epochs say: clock-derived fields age. */
  READ_CACHE_TTL_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
  TRUST_PROXY: z.string().optional(),
  COOKIE_SECURE: z.enum(["true", "false"]).default("true"),
  PUBLIC_URL: z.string().url().optional(),
  ALLOWED_ORIGINS: z.string().optional(),
  ENCRYPTION_KEY: z.string().optional(),
  /**
   * The Ed25519 service key that signs evidence manifests: PKCS#8 PEM or a private JWK. Unset:
   * derived from ENCRYPTION_KEY (server) or generated once in DATA_DIR/evidence-signing.key (embedded).
   */
  EVIDENCE_SIGNING_KEY: z.string().optional(),
  /** Retired signing keys still published in the JWKS: a JWKS or a JSON array of public JWKs. */
  EVIDENCE_SIGNING_KEYS_PREVIOUS: z.string().optional(),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: z.enum(["true", "false"]).default("false"),
  /** Redis key prefix of the job queue; the scheduler must use the same one. */
  JOBS_PREFIX: z.string().min(1).default("jobs"),
  LOG_LEVEL: ZLogLevel,
  /**
   * Gateway processes (node:cluster). Default: one per CPU with DATABASE_URL and REDIS_URL, else
   * one (embedded PGlite belongs to one process, and limits are exact across processes only in Redis).
   */
  GATEWAY_WORKERS: z.coerce.number().int().min(1).max(64).optional(),
  /**
   * How much V8 lets old space grow between full collections, in percent of the live set (0: V8's
   * own policy, up to 4x). Bounds the RSS of long downloads; not applied with the scheduler in
   * the process (docs/operations.md).
   */
  GATEWAY_HEAP_GROWING_PERCENT: z.coerce.number().int().min(0).max(400).default(50),
  /**
   * The time the orchestrator gives a stopping gateway before it kills it (its stop grace). The
   * gateway answers every request within it: near its end a request still waiting on a job (POST
   * /sync) answers 202 with the scan id and the scan goes on as a queued job (docs/operations.md).
   */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(1_000).optional(),
  /** The older name of SHUTDOWN_GRACE_MS, still read when the new one is unset. */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(1_000).optional(),
  /** Prometheus metrics on their own port (`GET /metrics`); unset: no metrics endpoint. */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  METRICS_HOST: z.string().default("0.0.0.0"),
  /** When set, the metrics endpoint requires `Authorization: Bearer <token>`. */
  METRICS_TOKEN: z.string().min(16).optional(),
});

export type TEnv = z.infer<typeof ZEnv>;

export function readEnv(source: NodeJS.ProcessEnv = process.env): TEnv {
  return parseEnv(ZEnv, source);
}

/** A deployment's declared stop grace: SHUTDOWN_GRACE_MS, 25 s by default (a usual orchestrator's 30 s, less a margin). */
export function shutdownGraceMs(env: Pick<TEnv, "SHUTDOWN_GRACE_MS" | "SHUTDOWN_TIMEOUT_MS">): number {
  return env.SHUTDOWN_GRACE_MS ?? env.SHUTDOWN_TIMEOUT_MS ?? 25_000;
}

/** Express `trust proxy` values: "loopback", a hop count, or comma-separated subnets. Unset: none. */
export function parseTrustProxy(raw: string | undefined): boolean | number | string | string[] {
  if (!raw) return false;
  if (/^\d+$/.test(raw)) return Number(raw);
  if (raw === "true" || raw === "false") {
    throw new Error("TRUST_PROXY=true would believe any client's X-Forwarded-For; name the proxies instead");
  }
  return raw.split(",").map((s) => s.trim());
}

/** How many gateway processes to run; refuses a cluster whose limits could not be exact. */
export function gatewayWorkers(env: TEnv, cpus: number): number {
  const serverMode = Boolean(env.DATABASE_URL && env.REDIS_URL);
  const workers = env.GATEWAY_WORKERS ?? (serverMode ? cpus : 1);
  if (workers > 1 && !serverMode) {
    throw new Error(
      "GATEWAY_WORKERS > 1 needs DATABASE_URL and REDIS_URL: the embedded database belongs to one process, and rate limits are shared across processes only in Redis",
    );
  }
  return workers;
}
