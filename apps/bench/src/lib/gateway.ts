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
 * The whole stack as deployed: the gateway's own main.ts on the given database and Redis. With
 * `inProcessJobs`, no REDIS_URL: jobs (scans) run in the gateway's own process, as the embedded
 * default runs them.
 */
export async function startGatewayChild(
  settings: TBenchSettings,
  databaseUrl: string,
  opts: { inProcessJobs?: boolean } = {},
): Promise<TChild> {
  // As users start it: built when the bundle is missing or older than its sources.
  await bundle({ appDir: fileURLToPath(GATEWAY_DIR), entries: ["src/main.ts"], ifStale: true, quiet: true });
  return startChild(new URL("dist/main.js", GATEWAY_DIR), {
    port: await freePort(),
    readyPath: "/api/health",
    cwd: GATEWAY_DIR,
    env: {
      HOST: "127.0.0.1",
      DATABASE_URL: databaseUrl,
      REDIS_URL: opts.inProcessJobs ? undefined : settings.redisUrl,
      TRUST_PROXY: "loopback",
      COOKIE_SECURE: "false",
      ENCRYPTION_KEY: randomBytes(32).toString("hex"),
      LOG_LEVEL: "warn",
      // As the Dockerfile deploys it.
      NODE_ENV: "production",
      GATEWAY_WORKERS: "1",
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
