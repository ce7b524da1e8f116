import cluster, { type Worker } from "node:cluster";
import type { Logger } from "pino";
import { clusterMetrics, startMetricsServer } from "@posture/platform";
import { shutdownGraceMs, type TEnv } from "./env";

// A worker that dies this often within a minute is not restarted again: the gateway exits.
const MAX_RESTARTS_PER_MINUTE = 5;
// The workers exit before the grace's end (shutdownPlan); the primary waits for them up to it.

/**
 * The primary of a clustered gateway: forks `workers` gateway processes that share the port
 * (node:cluster), restarts one that dies, serves the workers' metrics summed, and on SIGTERM
 * or SIGINT passes the signal on and exits once every worker has shut down gracefully.
 * Limits stay exact across workers because the counters live in Redis.
 */
export async function runPrimary(env: TEnv, log: Logger, workers: number): Promise<void> {
  let stopping = false;
  const restarts: number[] = [];
  const fork = () => cluster.fork();

  cluster.on("exit", (worker: Worker, code, signal) => {
    if (stopping) return;
    const now = Date.now();
    restarts.push(now);
    while (restarts.length > 0 && (restarts[0] ?? now) < now - 60_000) restarts.shift();
    if (restarts.length > MAX_RESTARTS_PER_MINUTE) {
      log.fatal({ pid: worker.process.pid, code, signal }, "gateway workers keep dying; giving up");
      process.exit(1);
    }
    log.error({ pid: worker.process.pid, code, signal }, "gateway worker died; starting another");
    fork();
  });

  for (let i = 0; i < workers; i++) fork();
  log.info({ workers, pid: process.pid }, "gateway primary started");

  if (env.METRICS_PORT !== undefined) {
    await startMetricsServer({
      port: env.METRICS_PORT,
      host: env.METRICS_HOST,
      ...(env.METRICS_TOKEN ? { token: env.METRICS_TOKEN } : {}),
      source: clusterMetrics(),
    });
    log.info({ port: env.METRICS_PORT, workers }, "metrics listening (all workers)");
  }

  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      log.info({ signal }, "shutting down: every worker finishes its in-flight requests");
      const force = setTimeout(() => process.exit(1), shutdownGraceMs(env));
      force.unref();
      const alive = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
      let failed = false;
      let left = alive.length;
      if (left === 0) process.exit(0);
      for (const w of alive) {
        w.once("exit", (code) => {
          failed ||= code !== 0;
          left -= 1;
          if (left === 0) process.exit(failed ? 1 : 0);
        });
        w.process.kill(signal);
      }
    });
  }
}
