import { randomBytes } from "node:crypto";
import type { TBenchSettings } from "../types";
import { freePort, startChild, type TChild } from "./child";

export const GATEWAY_ENV_NOTE =
  "gateway: its production entry point (apps/gateway/src/main.ts) as a separate process, NODE_ENV=production, LOG_LEVEL=warn, " +
  "TRUST_PROXY=loopback with a distinct X-Forwarded-For per request so the 60/min per-IP limit is " +
  "checked in Redis on every request without ending the run";

/** The whole stack as deployed: the gateway's own main.ts on the given database and Redis. */
export async function startGatewayChild(settings: TBenchSettings, databaseUrl: string): Promise<TChild> {
  return startChild(new URL("../../../gateway/src/main.ts", import.meta.url), {
    port: await freePort(),
    readyPath: "/api/health",
    cwd: new URL("../../../gateway/", import.meta.url),
    env: {
      HOST: "127.0.0.1",
      DATABASE_URL: databaseUrl,
      REDIS_URL: settings.redisUrl,
      TRUST_PROXY: "loopback",
      COOKIE_SECURE: "false",
      ENCRYPTION_KEY: randomBytes(32).toString("hex"),
      LOG_LEVEL: "warn",
      // As the Dockerfile deploys it.
      NODE_ENV: "production",
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
