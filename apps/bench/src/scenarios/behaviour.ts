import { performance } from "node:perf_hooks";
import { sql } from "drizzle-orm";
import {
  allowLongStatements,
  connectors,
  findings,
  incidents,
  JOB_STATEMENT_TIMEOUT_MS,
  type Db,
} from "@posture/db";
import { createTestDb } from "@posture/db/testing";
import { incidentReport } from "@posture/incidents";
import { createInProcessQueue } from "@posture/jobs";
import { refreshBehaviour } from "@posture/ueba";
import { endpointVsBare } from "../lib/endpoint-vs-bare";
import { seedOwnerWithKey } from "../lib/seed";
import type { TCheck, TScenario } from "../types";

const PEOPLE = 5_000;
const EVENTS = 1_000_000;
const FINDINGS = 500;

const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)] ?? 0;

/** A million events over 13 weeks for 5,000 people, generated in the database (deterministic hashes). */
async function seedActivity(db: Db, orgId: string, connectorId: string): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.execute(allowLongStatements(JOB_STATEMENT_TIMEOUT_MS));
    await seedEvents(tx, orgId, connectorId);
  });
}

async function seedEvents(db: Db, orgId: string, connectorId: string): Promise<void> {
  await db.execute(sql`
    insert into activity_events (org_id, connector_id, external_id, principal, kind, at, target, count)
    select ${orgId}, ${connectorId}, 'bench-' || g, 'person' || (g % ${PEOPLE}) || '@bench.test',
      (array['file_access','file_access','file_access','file_access','download','login','login','share_external'])[1 + abs(hashint4(g)) % 8],
      now() - (abs(hashint4(g * 7 + 1)) % (91 * 86400)) * interval '1 second',
      null, 1
    from generate_series(1, ${EVENTS}) g`);
  // A few planted stories, so the refresh writes anomalies as well.
  await db.execute(sql`
    insert into activity_events (org_id, connector_id, external_id, principal, kind, at, count)
    select ${orgId}, ${connectorId}, 'spike-' || g, 'person' || (g % 10) || '@bench.test', 'share_external',
      now() - interval '1 day' + g * interval '1 minute', 1
    from generate_series(1, 400) g`);
}

/**
 * Behaviour analytics at an organization's scale: recomputing baselines and anomalies for
 * 5,000 people and 1,000,000 events; the heatmap and anomaly endpoints through the whole stack;
 * an incident report with 500 linked findings.
 */
export const behaviour: TScenario = {
  name: "behaviour",
  title: `refresh ${PEOPLE} people / ${EVENTS.toLocaleString("en")} events; heatmap, anomalies; 500-finding incident PDF`,
  run: async (settings) => {
    const db = await createTestDb();
    try {
      const owner = await seedOwnerWithKey(db.db, "business");
      const [c] = await db.db
        .insert(connectors)
        .values({ orgId: owner.orgId, type: "google_workspace", displayName: "Bench", mode: "demo" })
        .returning();
      if (!c) throw new Error("connector insert failed");
      const seedStart = performance.now();
      await seedActivity(db.db, owner.orgId, c.id);
      await db.db.execute(sql`analyze activity_events`);
      const seedMs = performance.now() - seedStart;

      const refreshMs: number[] = [];
      let last = { principals: 0, anomalies: 0 };
      // No webhook subscriptions: the refresh announces nothing to deliver.
      const announce = { jobs: createInProcessQueue({}), publicUrl: "http://localhost" };
      for (let i = 0; i < 3; i++) {
        const t = performance.now();
        last = await refreshBehaviour(db.db, { orgId: owner.orgId }, announce);
        refreshMs.push(performance.now() - t);
      }

      const rows = Array.from({ length: FINDINGS }, (_, i) => ({
        orgId: owner.orgId,
        connectorId: c.id,
        connectorType: "google_workspace",
        fingerprint: `bench-${i}`,
        ruleId: i % 2 ? "public_link" : "external_share",
        category: "public_exposure",
        severity: (["CRITICAL", "HIGH", "MEDIUM", "LOW"] as const)[i % 4] ?? "LOW",
        severityRank: 4 - (i % 4),
        title: i % 2 ? "File shared publicly via link" : "File shared outside the organization",
        resourceId: `file-${i}`,
        resourceName: `Quarterly report ${i}.xlsx`,
        resourceType: "file",
      }));
      const ids = (await db.db.insert(findings).values(rows).returning({ id: findings.id })).map((r) => r.id);
      const [inc] = await db.db
        .insert(incidents)
        .values({
          orgId: owner.orgId,
          title: "Bench incident",
          priority: "P1",
          linkedFindingIds: ids,
          log: Array.from({ length: 20 }, (_, i) => ({
            at: new Date().toISOString(),
            note: `Step ${i}`,
            actor: "bench",
          })),
        })
        .returning();
      if (!inc) throw new Error("incident insert failed");
      const pdfMs: number[] = [];
      let pages = 0;
      for (let i = 0; i < 5; i++) {
        const t = performance.now();
        const r = await incidentReport(db.db, { orgId: owner.orgId, id: inc.id });
        pdfMs.push(performance.now() - t);
        pages = (r.pdf.toString("latin1").match(/\/Type \/Page\b/g) ?? []).length;
      }

      const checks: TCheck[] = [
        {
          label: "refresh ≤ 10 s (median of 3)",
          ok: median(refreshMs) <= 10_000,
          detail: `${Math.round(median(refreshMs))} ms`,
        },
        {
          label: "500-finding PDF ≤ 1 s (median of 5)",
          ok: median(pdfMs) <= 1_000,
          detail: `${Math.round(median(pdfMs))} ms, ${pages} pages`,
        },
      ];
      const notes = [
        `seeded ${EVENTS.toLocaleString("en")} events in ${Math.round(seedMs)} ms; refresh runs ${refreshMs.map(Math.round).join(", ")} ms; ${last.principals} principals, ${last.anomalies} anomalies`,
        `incident PDF runs ${pdfMs.map(Math.round).join(", ")} ms`,
      ];
      const measurements = [];
      for (const path of ["/api/behavior/heatmap?weeks=12&limit=50", "/api/behavior/anomalies?limit=50"]) {
        const out = await endpointVsBare(settings, {
          databaseUrl: db.url,
          path,
          key: owner.key,
          targets: { minRatio: 0, maxP99Ms: 25, coldMinRatio: 0, conditionalMinRatio: 0 },
          describe: (body) => `${path}: ${body.length} bytes`,
        });
        if (out.kind !== "done") continue;
        measurements.push(...out.measurements.map((m) => ({ ...m, label: `${path} ${m.label}` })));
        checks.push(...out.checks.map((k) => ({ ...k, label: `${path} ${k.label}` })));
        notes.push(...out.notes);
      }
      return { kind: "done", measurements, checks, notes };
    } finally {
      await db.drop();
    }
  },
};
