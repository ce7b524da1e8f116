import { createTestDb } from "@posture/db/testing";
import { ApiNotReadyError, describeScan, runApiScans, type TApiSession } from "../lib/api-scans";
import type { TCheck, TScenario } from "../types";

const FILES = Number(process.env.BENCH_REMEDIATION_FILES ?? "1000000");
const PLAN_FINDINGS = 1_000;
const PLANS = 5;
const SIMULATIONS = 30;
const TARGETS = { planMs: 1_000, simulateMs: 200 };

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.ceil(xs.length * 0.99) - 1] ?? NaN;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One request, timed on its own: a 429 (the session's minute budget) is waited out, untimed. */
async function timed(s: TApiSession, method: string, path: string, body?: unknown) {
  for (;;) {
    const started = performance.now();
    const res = await fetch(`${s.url}${path}`, {
      method,
      headers: { cookie: s.cookie, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    const ms = performance.now() - started;
    if (res.status === 429) {
      await sleep(1_000 * Math.max(1, Number(res.headers.get("retry-after") ?? "1")));
      continue;
    }
    if (res.status >= 400) throw new Error(`${method} ${path} → ${res.status}: ${text.slice(0, 300)}`);
    return { ms, body: JSON.parse(text) as unknown };
  }
}

/**
 * Planning and the what-if on the 1,000,000-file organization, over HTTP: after its first scan,
 * 1,000 of its public-link findings planned at once (each plan reads the store for every
 * permission the findings name, predicts the score and the controls), and the same findings
 * simulated.
 */
export const remediation1m: TScenario = {
  name: "remediation-1m",
  title: `remediation plans for ${PLAN_FINDINGS.toLocaleString("en")} findings and posture what-ifs on a ${FILES.toLocaleString("en")}-file demo organization over HTTP`,
  run: async (settings) => {
    const db = await createTestDb();
    try {
      const { results, after } = await runApiScans(settings, db, {
        files: FILES,
        steps: [{ label: "first scan", body: {} }],
        after: async (s) => {
          const ids: string[] = [];
          for (let offset = 0; ids.length < PLAN_FINDINGS; offset += 500) {
            const page = (
              await timed(s, "GET", `/api/findings?category=public_exposure&limit=500&offset=${offset}`)
            ).body as { findings: Array<{ id: string }>; nextOffset: number | null };
            ids.push(...page.findings.map((f) => f.id));
            if (page.nextOffset === null) break;
          }
          const findingIds = ids.slice(0, PLAN_FINDINGS);
          const plans: number[] = [];
          let steps = 0;
          for (let i = 0; i < PLANS; i++) {
            const r = await timed(s, "POST", "/api/remediations", { findingIds });
            plans.push(r.ms);
            steps = (r.body as { steps: unknown[] }).steps.length;
          }
          const simulations: number[] = [];
          for (let i = 0; i < SIMULATIONS; i++)
            simulations.push((await timed(s, "POST", "/api/posture/simulate", { findingIds })).ms);
          return { findings: findingIds.length, steps, plans, simulations };
        },
      });
      if (!after) throw new Error("the planning step did not run");
      const checks: TCheck[] = [
        {
          label: `plan for ${after.findings.toLocaleString("en")} findings (${after.steps.toLocaleString("en")} steps)`,
          ok: after.findings === PLAN_FINDINGS && median(after.plans) <= TARGETS.planMs,
          detail: `median ${median(after.plans).toFixed(0)} ms of ${PLANS} (target ≤ ${TARGETS.planMs} ms)`,
        },
        {
          label: "simulate the same findings",
          ok: median(after.simulations) <= TARGETS.simulateMs,
          detail: `median ${median(after.simulations).toFixed(1)} ms, p99 ${p99(after.simulations).toFixed(1)} ms of ${SIMULATIONS} (target ≤ ${TARGETS.simulateMs} ms)`,
        },
      ];
      return {
        kind: "done",
        measurements: [],
        checks,
        notes: [
          ...results.map(describeScan),
          "each request timed from the client (fetch to the end of the body) on the gateway's production build; a 429 of the session's budget is waited out and not timed",
        ],
      };
    } catch (err) {
      if (err instanceof ApiNotReadyError) return { kind: "skipped", reason: err.message };
      throw err;
    } finally {
      await db.drop();
    }
  },
};
