import cluster from "node:cluster";
import { availableParallelism } from "node:os";
import { setFlagsFromString } from "node:v8";
import { seedDemo } from "@posture/demo";
import {
  answerClusterMetricsRequests,
  collectProcessMetrics,
  createLogger,
  ownMetrics,
  startMetricsServer,
} from "@posture/platform";
import { runPrimary } from "./cluster";
import { demoBanner } from "./demo-banner";
import { gatewayWorkers, readEnv, shutdownGraceMs } from "./env";
import { shutdownPlan, startGateway } from "./server";

const env = readEnv();
const log = createLogger(env.LOG_LEVEL);
// `pnpm start` runs the whole service in one process; production runs the scheduler on its own.
const withScheduler = process.argv.includes("--with-scheduler");
const workers = gatewayWorkers(env, availableParallelism());

// A request's garbage dies young, but a long download (the findings export streams a million
// rows) promotes a steady trickle, and V8 lets old space grow to up to 4x the live set between
// full collections: 290 MB peak RSS for an export on a 150 MB gateway. Growing by at most GATEWAY_HEAP_GROWING_PERCENT (50%)
// keeps it near 200 MB for a few ms of incremental marking per collection (docs/benchmarks.md).
// Not with the scheduler in the process: a scan's large live set would pay for it.
if (!withScheduler && env.GATEWAY_HEAP_GROWING_PERCENT > 0)
  setFlagsFromString(`--heap-growing-percent=${env.GATEWAY_HEAP_GROWING_PERCENT}`);

if (workers > 1 && cluster.isPrimary) {
  await runPrimary(env, log, workers);
} else {
  collectProcessMetrics();
  if (cluster.isWorker) answerClusterMetricsRequests();
  const gateway = await startGateway({ env, log, withScheduler });
  // A single process serves its own metrics; a cluster's primary serves every worker's.
  const metricsServer =
    cluster.isPrimary && env.METRICS_PORT !== undefined
      ? await startMetricsServer({
          port: env.METRICS_PORT,
          host: env.METRICS_HOST,
          ...(env.METRICS_TOKEN ? { token: env.METRICS_TOKEN } : {}),
          source: ownMetrics,
        })
      : undefined;
  // The handlers go in before anything says the gateway is up: a SIGTERM that arrives before
  // them takes Node's default, which kills the process mid-request with no exit code.
  let stopping = false;
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      const graceMs = shutdownGraceMs(env);
      const plan = shutdownPlan(graceMs);
      log.info({ signal, graceMs, ...plan }, "shutting down: finishing in-flight requests and jobs");
      // A request still unanswered past the plan's deadline: exit before the orchestrator kills.
      const force = setTimeout(
        () => {
          log.warn({}, "shutdown timed out");
          process.exit(1);
        },
        Math.round((plan.deadlineMs + graceMs) / 2),
      );
      force.unref();
      metricsServer?.close();
      gateway.close(plan).then(
        () => process.exit(0),
        (err: unknown) => {
          log.error({ err }, "shutdown failed");
          process.exit(1);
        },
      );
    });
  }

  log.info(
    { url: gateway.url, withScheduler, database: gateway.deps.db.kind, redis: Boolean(env.REDIS_URL) },
    "gateway listening",
  );
  if (!env.DATABASE_URL) {
    // First start only (an empty database): the demo organizations, then their eight weeks of
    // history, told through the service's own procedures and jobs (packages/demo).
    const { db, runtime } = gateway.deps;
    const seeded = await seedDemo({ db: db.db, runtime, log });
    if (seeded) {
      log.info(seeded.history, "demo history seeded");
      process.stdout.write(demoBanner(seeded.seed, runtime.publicUrl));
    }
  }
}
