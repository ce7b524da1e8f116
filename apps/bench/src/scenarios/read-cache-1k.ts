import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { apiKeys, connectors, memberships, organizations, users } from "@posture/db";
import { createTestDb } from "@posture/db/testing";
import { generateApiKey } from "@posture/platform";
import { freePort, peakRssMb, resetPeakRss } from "../lib/child";
import { GATEWAY_ENV_NOTE, startGatewayChild } from "../lib/gateway";
import type { TMeasurement, TScenario } from "../types";

const ORGS = 1_000;
const FINDINGS_PER_ORG = 60;
const PATHS = ["/api/findings?limit=50", "/api/audit", "/api/timeline?limit=50", "/api/usage"];
const CONCURRENCY = 10;
const MAX_RSS_MB = 250;

/** A thousand organizations, each with an OWNER's API key and a page of findings, in four statements. */
async function seedOrganizations(db: Awaited<ReturnType<typeof createTestDb>>["db"]) {
  const orgs = await db
    .insert(organizations)
    .values(Array.from({ length: ORGS }, (_, i) => ({ name: `Bench ${i}`, plan: "business" as const })))
    .returning({ id: organizations.id });
  const people = await db
    .insert(users)
    .values(
      orgs.map(() => ({ email: `bench-${randomBytes(5).toString("hex")}@example.test`, passwordHash: "x" })),
    )
    .returning({ id: users.id });
  await db
    .insert(memberships)
    .values(orgs.map((o, i) => ({ orgId: o.id, userId: people[i]?.id ?? "", role: "OWNER" as const })));
  const keys = orgs.map(() => generateApiKey());
  await db.insert(apiKeys).values(
    orgs.map((o, i) => ({
      orgId: o.id,
      createdByUserId: people[i]?.id ?? "",
      name: "bench",
      keyHash: keys[i]?.keyHash ?? "",
      keyPrefix: keys[i]?.keyPrefix ?? "",
    })),
  );
  const sources = await db
    .insert(connectors)
    .values(
      orgs.map((o) => ({
        orgId: o.id,
        type: "google_workspace" as const,
        displayName: "Bench",
        mode: "demo" as const,
      })),
    )
    .returning({ id: connectors.id, orgId: connectors.orgId });
  await db.execute(sql`
    insert into findings (id, org_id, connector_id, connector_type, fingerprint, rule_id, category, severity,
      severity_rank, title, resource_id, resource_name, resource_type, status, detected_at)
    select 'fnd_' || c.n || '_' || g, c.org_id, c.id, 'google_workspace', md5(c.n || ':' || g),
      'public_link', 'public_exposure', (array['CRITICAL','HIGH','MEDIUM','LOW'])[1 + (g * 7) % 4], 4 - (g * 7) % 4,
      'Finding ' || g, 'res_' || g, 'File ' || g || '.xlsx', 'file', 'OPEN', now() - (g || ' seconds')::interval
    from (select id, org_id, row_number() over () as n from connectors) c, generate_series(1, ${FINDINGS_PER_ORG}) g`);
  await db.execute(sql`vacuum analyze findings`);
  return { keys: keys.map((k) => k.key), sources: sources.length };
}

/**
 * The read cache full for a thousand organizations (issue 34): every organization's findings,
 * audit, timeline and usage read once (misses: kept), then again (hits), ten at a time, each from
 * a client address of its own. The gateway's RSS must stay within 250 MB, the cache within its
 * bound (64 MB by default, evicting least recently used first).
 */
export const readCache1k: TScenario = {
  name: "read-cache-1k",
  title: `read cache full: ${ORGS.toLocaleString("en")} organizations × ${PATHS.length} reads, twice`,
  run: async (settings) => {
    const db = await createTestDb();
    try {
      const { keys } = await seedOrganizations(db.db);
      const metricsPort = await freePort();
      const gateway = await startGatewayChild(settings, db.url, {
        env: { METRICS_PORT: String(metricsPort) },
      });
      /** The cache's own account of what it holds (the read_cache_bytes gauge), in MB and answers. */
      const held = async () => {
        const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
        const of = (m: string) =>
          Number(new RegExp(`^read_cache_bytes\\{measure="${m}"\\} (\\S+)`, "m").exec(text)?.[1]);
        return `${(of("bytes") / 1048576).toFixed(1)} MB in ${of("answers")} answers`;
      };
      try {
        let ip = 0;
        const pass = async (label: string): Promise<TMeasurement> => {
          const jobs = keys.flatMap((key) => PATHS.map((path) => ({ key, path })));
          const latencies: number[] = [];
          let failures = 0;
          await resetPeakRss(gateway.pid);
          const cpuBefore = await gateway.cpuMs();
          const startedAt = performance.now();
          let next = 0;
          await Promise.all(
            Array.from({ length: CONCURRENCY }, async () => {
              while (next < jobs.length) {
                const job = jobs[next++];
                if (!job) break;
                ip += 1;
                const t0 = performance.now();
                const res = await fetch(`${gateway.url}${job.path}`, {
                  headers: {
                    authorization: `Bearer ${job.key}`,
                    "x-forwarded-for": `2001:db8:${(ip >>> 16).toString(16)}:${(ip & 0xffff).toString(16)}::1`,
                  },
                });
                await res.arrayBuffer();
                latencies.push(performance.now() - t0);
                if (res.status !== 200) failures++;
              }
            }),
          );
          const seconds = (performance.now() - startedAt) / 1000;
          const cpuAfter = await gateway.cpuMs();
          latencies.sort((a, b) => a - b);
          const at = (q: number) =>
            Math.round((latencies[Math.floor(q * (latencies.length - 1))] ?? 0) * 10) / 10;
          return {
            label,
            requestsPerSec: Math.round(jobs.length / seconds),
            cpuMsPerRequest:
              cpuBefore === null || cpuAfter === null ? null : (cpuAfter - cpuBefore) / jobs.length,
            p50Ms: at(0.5),
            p99Ms: at(0.99),
            rssMb: await peakRssMb(gateway.pid),
            non2xx: failures,
            errors: 0,
          };
        };
        const first = await pass("first pass: every read a miss, kept (peak RSS)");
        const second = await pass("second pass: every read a hit (peak RSS)");
        const third = await pass("third pass (peak RSS)");
        const cacheHeld = await held();
        const peak = Math.max(first.rssMb ?? 0, second.rssMb ?? 0, third.rssMb ?? 0);
        return {
          kind: "done",
          measurements: [first, second, third],
          checks: [
            {
              label: `peak RSS <= ${MAX_RSS_MB} MB with the cache full`,
              ok: peak > 0 && peak <= MAX_RSS_MB,
              detail: `${peak} MB`,
            },
            {
              label: "every answer 200",
              ok: first.non2xx + second.non2xx + third.non2xx === 0,
              detail: `${first.non2xx + second.non2xx + third.non2xx} others`,
            },
          ],
          notes: [
            GATEWAY_ENV_NOTE,
            `${ORGS} organizations, ${FINDINGS_PER_ORG} findings each; ${PATHS.join(", ")} per organization, ${CONCURRENCY} at a time`,
            `the read cache at READ_CACHE_MAX_MB=${process.env.READ_CACHE_MAX_MB || "64 (the default)"}, holding ${cacheHeld} after the passes; RSS is the pass's peak (VmHWM)`,
          ],
        };
      } finally {
        await gateway.stop();
      }
    } finally {
      await db.drop();
    }
  },
};
