import { randomBytes } from "node:crypto";
import autocannon from "autocannon";
import type { TBenchSettings, TMeasurement } from "../types";
import type { TChild } from "./child";

/**
 * Every request claims its own client network in X-Forwarded-For (the gateway trusts loopback
 * proxies in the benchmark, and counts IPv6 clients per /64), so the per-client rate limit is
 * exercised on every request, as in production, without a 60-per-minute budget stopping the run.
 */
function distinctClientAddresses(): () => string {
  const prefix = `2001:db8:${randomBytes(2).toString("hex")}`;
  let n = 0;
  return () => {
    n += 1;
    return `${prefix}:${(n & 0xffff).toString(16)}:${((n >>> 16) & 0xffff).toString(16)}::1`;
  };
}

export type TLoad = {
  path: string;
  headers?: Record<string, string>;
  /** 304: every answer should be Not Modified (a conditional GET); `non2xx` then counts the others. */
  expectStatus?: 304;
};

function run(url: string, load: TLoad, connections: number, durationSec: number) {
  const nextIp = distinctClientAddresses();
  return autocannon({
    url,
    connections,
    duration: durationSec,
    headers: load.headers ?? {},
    requests: [
      {
        method: "GET",
        path: load.path,
        setupRequest: (req) => ({ ...req, headers: { ...req.headers, "x-forwarded-for": nextIp() } }),
      },
    ],
  });
}

/** A warm-up run (discarded: JIT, connection pools, caches), then the measured run. */
export async function measure(
  label: string,
  child: TChild,
  load: TLoad,
  settings: TBenchSettings,
): Promise<TMeasurement> {
  if (settings.warmupSec > 0) await run(child.url, load, settings.connections, settings.warmupSec);
  const cpuBefore = await child.cpuMs();
  const r = await run(child.url, load, settings.connections, settings.durationSec);
  const cpuAfter = await child.cpuMs();
  const requests = r.requests.total;
  return {
    label,
    requestsPerSec: r.requests.average,
    cpuMsPerRequest:
      cpuBefore === null || cpuAfter === null || requests === 0 ? null : (cpuAfter - cpuBefore) / requests,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    rssMb: await child.rssMb(),
    non2xx: load.expectStatus === 304 ? requests - (r["3xx"] ?? 0) : r.non2xx,
    errors: r.errors + r.timeouts,
  };
}
