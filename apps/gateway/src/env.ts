import { z } from "zod";
import { parseEnv, ZLogLevel } from "@posture/platform";

// The only place that reads process.env for the gateway (and the combined `pnpm start`).
const ZEnv = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default("0.0.0.0"),
  DATABASE_URL: z.string().url().optional(),
  DATA_DIR: z.string().default(".data"),
  REDIS_URL: z.string().url().optional(),
  TRUST_PROXY: z.string().optional(),
  COOKIE_SECURE: z.enum(["true", "false"]).default("true"),
  PUBLIC_URL: z.string().url().optional(),
  ALLOWED_ORIGINS: z.string().optional(),
  ENCRYPTION_KEY: z.string().optional(),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: z.enum(["true", "false"]).default("false"),
  /** Redis key prefix of the job queue; the scheduler must use the same one. */
  JOBS_PREFIX: z.string().min(1).default("jobs"),
  LOG_LEVEL: ZLogLevel,
});

export type TEnv = z.infer<typeof ZEnv>;

export function readEnv(source: NodeJS.ProcessEnv = process.env): TEnv {
  return parseEnv(ZEnv, source);
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
