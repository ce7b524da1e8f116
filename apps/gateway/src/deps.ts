import type { Logger } from "pino";
import type { Db, DbHandle } from "@posture/db";
import type { AccessGate, RateLimits, TDataWrites, TJobQueue, TProbes, TRuntime } from "@posture/platform";
import type { ReadCache } from "./read-cache";

/** Everything the gateway is assembled from; built by server.ts (or a test harness). */
export type TGatewayDeps = {
  db: DbHandle;
  /**
   * The request path's database: `db` under the interactive bound (DB_REQUEST_TIMEOUT_MS), for
   * credentials, idempotency keys and every procedure but downloads, which get `db.db`.
   */
  requestDb: Db;
  limits: RateLimits;
  /** Marks the data epochs around every write (data-epochs.ts); unset: no read is cached. */
  dataWrites?: TDataWrites;
  /** JSON GET answers kept per credential and data epoch (read-cache.ts); unset: none. */
  readCache?: ReadCache;
  /** Rate limits and credential resolution of every /api and /trpc request (cached, epoch-checked). */
  access: AccessGate;
  jobs: TJobQueue;
  runtime: TRuntime;
  log: Logger;
  probes: TProbes;
  trustProxy: boolean | number | string | string[];
  secureCookies: boolean;
  /** Origins besides the request's own that may send cookie-authenticated writes. */
  allowedOrigins: string[];
};
