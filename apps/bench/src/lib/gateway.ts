import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { bundle } from "@posture/build";
import type { TBenchSettings } from "../types";
import { freePort, startChild, type TChild } from "./child";

export const GATEWAY_ENV_NOTE =
  "gateway: its production build (apps/gateway/dist/main.js, as `pnpm start` and the image run it) as a separate process, one worker, NODE_ENV=production, LOG_LEVEL=warn, " +
  "TRUST_PROXY=loopback with a distinct X-Forwarded-For /64 per request so the 60/min per-client limit is " +
  "checked in Redis on every request without ending the run";

const GATEWAY_DIR = new URL("../../../gateway/", import.meta.url);

/**
 * How the gateway child runs its jobs (scans):
 * - `requests` (the default): DATABASE_URL and REDIS_URL, no scheduler — jobs go to BullMQ and
 *   nothing in the child works them (the request-serving gateway of a deployment);
 * - `in-process`: DATABASE_URL, no REDIS_URL: jobs run in the child's own in-process runner;
 * - `server`: `pnpm start` (`dist/main.js --with-scheduler`) on PostgreSQL and Redis: jobs go to
 *   BullMQ and the scheduler's workers, started in the same process, run them;
 * - `embedded`: `pnpm start` with no DATABASE_URL or REDIS_URL — PGlite in `dataDir`, jobs in
 *   process, the default.
 */
export type TGatewayMode = "requests" | "in-process" | "server" | "embedded";

/**
 * The whole stack as deployed: the gateway's own main.ts on the given database and Redis, or
 * (`embedded`) on PGlite in `dataDir`. With `inProcessJobs` (kept for the scenarios that pass
 * it): the `in-process` mode.
 */
export async function startGatewayChild(
  settings: TBenchSettings,
  databaseUrl: string | null,
  opts: {
    inProcessJobs?: boolean;
    mode?: TGatewayMode;
    dataDir?: string;
    jobsPrefix?: string;
    /** More environment (a replica's shared ENCRYPTION_KEY, READ_CACHE_MAX_MB=0 for a cold one). */
    env?: Record<string, string | undefined>;
  } = {},
): Promise<TChild> {
  const mode = opts.mode ?? (opts.inProcessJobs ? "in-process" : "requests");
  if (mode === "embedded" ? !opts.dataDir : !databaseUrl)
    throw new Error(
      `gateway mode ${mode}: ${mode === "embedded" ? "a data dir" : "a database URL"} is needed`,
    );
  // As users start it: built when the bundle is missing or older than its sources.
  await bundle({ appDir: fileURLToPath(GATEWAY_DIR), entries: ["src/main.ts"], ifStale: true, quiet: true });
  return startChild(new URL("dist/main.js", GATEWAY_DIR), {
    port: await freePort(),
    readyPath: "/api/health",
    cwd: GATEWAY_DIR,
    // `pnpm start` is `start:all`: the scheduler's workers and sweeps in the same process.
    args: mode === "server" || mode === "embedded" ? ["--with-scheduler"] : [],
    // The embedded default opens PGlite and migrates it before it listens.
    readyTimeoutMs: mode === "embedded" ? 120_000 : 30_000,
    env: {
      HOST: "127.0.0.1",
      DATABASE_URL: mode === "embedded" ? undefined : (databaseUrl ?? undefined),
      REDIS_URL: mode === "requests" || mode === "server" ? settings.redisUrl : undefined,
      DATA_DIR: mode === "embedded" ? opts.dataDir : undefined,
      // Its own BullMQ keys: other runs on the same Redis must not work this child's jobs.
      JOBS_PREFIX: opts.jobsPrefix,
      TRUST_PROXY: "loopback",
      COOKIE_SECURE: "false",
      // Embedded: generated once in DATA_DIR, as a user's first start does.
      ENCRYPTION_KEY: mode === "embedded" ? undefined : randomBytes(32).toString("hex"),
      LOG_LEVEL: "warn",
      // As the Dockerfile deploys it.
      NODE_ENV: "production",
      GATEWAY_WORKERS: "1",
      ...opts.env,
    },
  });
}

/** The baseline: bare Express 5 serving `bodyFile` at `path` from memory. */
export async function startBareChild(path: string, bodyFile: string): Promise<TChild> {
  return startChild(new URL("../children/bare.ts", import.meta.url), {
    port: await freePort(),
    readyPath: path,
    env: { BENCH_BODY_FILE: bodyFile, BENCH_PATH: path },
  });
}
