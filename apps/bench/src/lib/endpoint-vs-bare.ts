import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TBenchSettings, TCheck, TMeasurement, TScenarioOutcome } from "../types";
import type { TChild } from "./child";
import { GATEWAY_ENV_NOTE, startBareChild, startGatewayChild } from "./gateway";
import { measure, type TLoad } from "./load";

/** Issue 34's targets, as ratios to the bare route (medians over the rounds) and the warm tail. */
export type TTargets = {
  minRatio: number;
  maxP99Ms: number;
  coldMinRatio?: number;
  conditionalMinRatio?: number;
};

/** Rounds of cold, warm, 304 and bare, alternating, so a noisy moment of the machine hits all alike. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const COMPRESSED = { "accept-encoding": "gzip, deflate, br" };

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};
const ratio = (m: TMeasurement, bare: TMeasurement) =>
  bare.requestsPerSec > 0 ? m.requestsPerSec / bare.requestsPerSec : 0;
const cpuDelta = (a: TMeasurement, b: TMeasurement) =>
  a.cpuMsPerRequest === null || b.cpuMsPerRequest === null ? null : a.cpuMsPerRequest - b.cpuMsPerRequest;

/**
 * One GET through the whole stack against a bare Express 5 child serving the very same JSON body
 * from memory, measured alike, in `BENCH_ROUNDS` alternating rounds (issue 34):
 * - cold: a gateway replica with its read cache off (READ_CACHE_MAX_MB=0), every read a miss;
 * - warm: a replica with the read cache on, the answer kept: a hit;
 * - conditional: the warm replica asked with the answer's ETag: 304, no body, not charged;
 * - bare: the baseline;
 * - cold and warm again with `Accept-Encoding: gzip, deflate, br`: what compression costs a miss
 *   (compressed per request) and a hit (compressed once, kept).
 * Both replicas share the database, Redis and the encryption key, as two replicas of a deployment.
 */
export async function endpointVsBare(
  settings: TBenchSettings,
  o: {
    databaseUrl: string;
    path: string;
    key: string;
    targets: TTargets;
    describe: (body: string) => string;
  },
): Promise<TScenarioOutcome> {
  const children: TChild[] = [];
  const dir = await mkdtemp(join(tmpdir(), "posture-bench-"));
  try {
    const env = { ENCRYPTION_KEY: randomBytes(32).toString("hex") };
    const warm = await startGatewayChild(settings, o.databaseUrl, { env });
    children.push(warm);
    const cold = await startGatewayChild(settings, o.databaseUrl, {
      env: { ...env, READ_CACHE_MAX_MB: "0" },
    });
    children.push(cold);
    const headers = { authorization: `Bearer ${o.key}` };
    const probe = await fetch(`${warm.url}${o.path}`, { headers });
    const text = await probe.text();
    if (probe.status === 404) return { kind: "skipped", reason: `GET ${o.path} is not in the router yet` };
    if (probe.status !== 200) throw new Error(`GET ${o.path} answered ${probe.status}: ${text}`);
    const etag = probe.headers.get("etag");
    if (!etag) throw new Error(`GET ${o.path} answered without an ETag`);

    const bodyFile = join(dir, "body.json");
    await writeFile(bodyFile, text);
    const bare = await startBareChild(new URL(o.path, "http://x").pathname, bodyFile);
    children.push(bare);

    const plain: TLoad = { path: o.path, headers };
    const rounds: Array<
      Record<"cold" | "warm" | "conditional" | "bare" | "coldCompressed" | "warmCompressed", TMeasurement>
    > = [];
    for (let r = 1; r <= ROUNDS; r++) {
      const at = ROUNDS > 1 ? ` #${r}` : "";
      rounds.push({
        cold: await measure(`cold (read cache off)${at}`, cold, plain, settings),
        warm: await measure(`warm (read cache hit)${at}`, warm, plain, settings),
        conditional: await measure(
          `conditional, If-None-Match (304)${at}`,
          warm,
          { path: o.path, headers: { ...headers, "if-none-match": etag }, expectStatus: 304 },
          settings,
        ),
        bare: await measure(`bare Express 5${at}`, bare, plain, settings),
        coldCompressed: await measure(
          `cold, compressed${at}`,
          cold,
          { path: o.path, headers: { ...headers, ...COMPRESSED } },
          settings,
        ),
        warmCompressed: await measure(
          `warm, compressed${at}`,
          warm,
          { path: o.path, headers: { ...headers, ...COMPRESSED } },
          settings,
        ),
      });
    }
    const med = (f: (r: (typeof rounds)[number]) => number) => median(rounds.map(f));
    const warmRatio = med((r) => ratio(r.warm, r.bare));
    const coldRatio = med((r) => ratio(r.cold, r.bare));
    const conditionalRatio = med((r) => ratio(r.conditional, r.bare));
    const warmP99 = med((r) => r.warm.p99Ms);
    const cpu = (f: (r: (typeof rounds)[number]) => number | null) => {
      const xs = rounds.map(f).filter((x): x is number => x !== null);
      return xs.length ? `${median(xs).toFixed(3)} ms` : "unknown";
    };
    const all = rounds.flatMap((r) => Object.values(r));
    const failures = all.reduce((n, m) => n + m.non2xx + m.errors, 0);
    const coldMin = o.targets.coldMinRatio ?? 0.35;
    const conditionalMin = o.targets.conditionalMinRatio ?? 0.8;
    const checks: TCheck[] = [
      {
        label: `warm: ratio warm/bare >= ${o.targets.minRatio} (median)`,
        ok: warmRatio >= o.targets.minRatio,
        detail: warmRatio.toFixed(3),
      },
      {
        label: `warm: p99 <= ${o.targets.maxP99Ms} ms (median)`,
        ok: warmP99 <= o.targets.maxP99Ms,
        detail: `${warmP99} ms`,
      },
      {
        label: `conditional: ratio 304/bare >= ${conditionalMin} (median)`,
        ok: conditionalRatio >= conditionalMin,
        detail: conditionalRatio.toFixed(3),
      },
      {
        label: `cold: ratio cold/bare >= ${coldMin} (median)`,
        ok: coldRatio >= coldMin,
        detail: coldRatio.toFixed(3),
      },
      {
        label: "every answer as expected (2xx, or 304 when conditional), no errors",
        ok: failures === 0,
        detail: `${failures} others`,
      },
    ];
    return {
      kind: "done",
      measurements: all,
      checks,
      notes: [
        GATEWAY_ENV_NOTE,
        `${o.describe(text)}, ${Buffer.byteLength(text)} bytes; bare serves the same JSON from memory`,
        `${ROUNDS} rounds, each: cold, warm, 304, bare, cold compressed, warm compressed; ratios are medians over the rounds`,
        `cold is a second replica with READ_CACHE_MAX_MB=0; the 304 runs send the probe's ETag; a 304 is not charged`,
        `compression's CPU per request (median of rounds): on a miss ${cpu((r) => cpuDelta(r.coldCompressed, r.cold))}, on a hit (kept compressed) ${cpu((r) => cpuDelta(r.warmCompressed, r.warm))}`,
        `medians: cold ${coldRatio.toFixed(3)}, warm ${warmRatio.toFixed(3)}, 304 ${conditionalRatio.toFixed(3)} × bare; warm p99 ${warmP99} ms`,
      ],
    };
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    await rm(dir, { recursive: true, force: true });
  }
}
