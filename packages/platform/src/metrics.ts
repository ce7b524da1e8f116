import { createServer, type Server } from "node:http";
import { timingSafeEqual } from "node:crypto";
import client from "prom-client";

/**
 * Prometheus metrics, in prom-client's default registry so that a clustered gateway's primary
 * can aggregate its workers' (AggregatorRegistry reads each worker's default registry).
 * Labels are bounded: route templates, error codes, policy names, job names.
 */
export const metrics = {
  httpRequests: new client.Counter({
    name: "http_requests_total",
    help: "HTTP requests answered, by method, route template and status",
    labelNames: ["method", "route", "status"] as const,
  }),
  httpDuration: new client.Histogram({
    name: "http_request_duration_seconds",
    help: "Time from request to response end, by method and route template",
    labelNames: ["method", "route"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
  }),
  httpErrors: new client.Counter({
    name: "http_errors_total",
    help: "Error responses by the contract's error code",
    labelNames: ["code"] as const,
  }),
  rateLimitRefusals: new client.Counter({
    name: "rate_limit_refusals_total",
    help: "Requests refused with 429, by limit policy",
    labelNames: ["policy"] as const,
  }),
  credentialChecks: new client.Counter({
    name: "credential_checks_total",
    help: "Credentials checked on the request path: cache (no database) or lookup (PostgreSQL), by outcome",
    labelNames: ["source", "outcome"] as const,
  }),
  readCache: new client.Counter({
    name: "read_cache_requests_total",
    help: "JSON GETs and the read cache: hit (answered from memory), miss (read and stored), bypass (a write in progress, the epoch unknown, or not cacheable)",
    labelNames: ["outcome"] as const,
  }),
  jobDuration: new client.Histogram({
    name: "job_duration_seconds",
    help: "Background job run time, by job name and outcome",
    labelNames: ["job", "outcome"] as const,
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300],
  }),
};

let defaultsStarted = false;
/** Process metrics (CPU, memory, event-loop lag, GC), once per process. */
export function collectProcessMetrics(): void {
  if (defaultsStarted) return;
  defaultsStarted = true;
  client.collectDefaultMetrics();
}

/** A gauge whose value is read when Prometheus scrapes (pool sizes, health, queue depth). */
export function observedGauge<L extends string>(
  name: string,
  help: string,
  labelNames: readonly L[],
  read: () => Promise<Array<{ labels: Partial<Record<L, string>>; value: number }>>,
  /** How a cluster's primary combines the workers' values. */
  aggregator: "sum" | "min" | "max" = "sum",
): void {
  const existing = client.register.getSingleMetric(name);
  if (existing) client.register.removeSingleMetric(name);
  new client.Gauge({
    name,
    help,
    labelNames,
    aggregator,
    async collect() {
      this.reset();
      for (const { labels, value } of await read()) this.set(labels, value);
    },
  });
}

export type TMetricsSource = () => Promise<{ contentType: string; body: string }>;

/** This process's registry. */
export const ownMetrics: TMetricsSource = async () => ({
  contentType: client.register.contentType,
  body: await client.register.metrics(),
});

/** A cluster worker: answers its primary's requests for this process's metrics (over IPC). */
export function answerClusterMetricsRequests(): void {
  // prom-client installs the worker-side IPC listener when an AggregatorRegistry is created.
  new client.AggregatorRegistry();
}

/** A clustered primary: every worker's registry, summed (histograms and counters) per series. */
export function clusterMetrics(): TMetricsSource {
  const aggregator = new client.AggregatorRegistry();
  return async () => ({ contentType: aggregator.contentType, body: await aggregator.clusterMetrics() });
}

/**
 * The metrics endpoint on its own port (never the API's): `GET /metrics`, optionally behind a
 * bearer token. Resolves once listening.
 */
export async function startMetricsServer(o: {
  port: number;
  host: string;
  token?: string;
  source: TMetricsSource;
}): Promise<Server> {
  const expected = o.token ? Buffer.from(`Bearer ${o.token}`) : null;
  const server = createServer((req, res) => {
    if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/metrics") {
      res.writeHead(404).end();
      return;
    }
    if (expected) {
      const given = Buffer.from(req.headers.authorization ?? "");
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        res.writeHead(401, { "WWW-Authenticate": "Bearer" }).end();
        return;
      }
    }
    o.source().then(
      ({ contentType, body }) => res.writeHead(200, { "Content-Type": contentType }).end(body),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, o.host, () => resolve());
  });
  return server;
}
