import { createTestDb } from "@posture/db/testing";
import { runChildReport } from "../lib/child";
import { GATEWAY_ENV_NOTE, startGatewayChild } from "../lib/gateway";
import { measure } from "../lib/load";
import { seedOwnerWithKey } from "../lib/seed";
import type { TBenchSettings, TCheck, TMeasurement, TScenario } from "../types";

const FILES = Number(process.env.BENCH_EXPOSURE_FILES ?? "1000000");
const HEAP_FLAG = "--max-old-space-size=256";
const TARGETS = {
  scanMs: 90_000,
  rescanMs: 10_000,
  rssMb: 300,
  searchP99: 25,
  sharingP99: 25,
  graphMs: 50,
  aiP99: 50,
  aiFilesP99: 25,
};
// Issue 30's directory at 1M files: 25,000 users and 5,000 groups.
const DIRECTORY = { usersPerFile: 25_000 / 1_000_000, groupsPerFile: 5_000 / 1_000_000 };

type TLatency = { p50: number; p99: number };
type TReport = {
  scan: { ms: number; resources: number; findingsNew: number; status: string };
  scanMaxRssMb: number;
  vacuumMs: number;
  search: { term: string; users: TLatency; files: TLatency; filesMatched: number; filesByName: TLatency };
  sharing: { firstPage: TLatency; offset5000: TLatency; total: number };
  graph: { page500: TLatency; totalNodes: number };
  /** The first scan's stages (ms), from its "scan finished" log record. */
  stages: Record<string, number>;
  rescan: {
    ms: number;
    kind: string;
    findingsNew: number;
    findingsResolved: number;
    stages: Record<string, number>;
  };
  directory: { users: number; assistantUsers: number; groups: number };
};

/** The scan stages that compute reach: the files (each file's reach, groups expanded once) and the AI reach summaries. */
const REACH_STAGES = ["files", "ai_reach"] as const;
const stageShare = (stages: Record<string, number>) => {
  const total = stages.total ?? 0;
  return REACH_STAGES.filter((k) => stages[k] !== undefined)
    .map((k) => `${k} ${stages[k]} ms (${total ? Math.round((100 * (stages[k] ?? 0)) / total) : 0} %)`)
    .join(", ");
};
const stageList = (stages: Record<string, number>) =>
  Object.entries(stages)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");

type TAiBody = {
  score: number;
  assistants: Array<{
    id: string;
    kind: string;
    reachableFiles: number;
    sensitiveReachableFiles: number;
    users: number;
  }>;
};

/**
 * The AI exposure reads over HTTP on the gateway's production build, one connection at a time
 * (the latency of a request, not of a queue): the readiness, then the files pages.
 */
async function aiReads(settings: TBenchSettings, databaseUrl: string, key: string) {
  const gateway = await startGatewayChild(settings, databaseUrl);
  try {
    const headers = { authorization: `Bearer ${key}` };
    // The first answer after a scan is cold: the posture what-if of each quick win gathers the
    // organization's compliance signals once (remediation's cache), which can pass the request's
    // 5 s statement bound on a loaded machine (a 503); timed, then asked again.
    const cold: string[] = [];
    let body: TAiBody | null = null;
    for (let attempt = 0; attempt < 4 && !body; attempt++) {
      const started = performance.now();
      const res = await fetch(`${gateway.url}/api/exposure/ai`, { headers });
      cold.push(`${res.status} in ${Math.round(performance.now() - started)} ms`);
      if (res.ok) body = (await res.json()) as TAiBody;
      else if (attempt === 3)
        throw new Error(`GET /api/exposure/ai answered ${res.status}: ${await res.text()}`);
    }
    if (!body) throw new Error("GET /api/exposure/ai: no answer");
    const agent = body.assistants.find((a) => a.kind === "agent");
    const one = { ...settings, connections: 1 };
    const files = "/api/exposure/ai/files?limit=50";
    const paths: Array<[string, string]> = [
      ["exposure/ai", "/api/exposure/ai"],
      ["files, first page", files],
      ["files, offset 5,000", `${files}&offset=5000`],
      ["files, gemini, severity HIGH", `${files}&assistant=gemini&severity=HIGH`],
      ["files, gemini, severity HIGH, offset 1,000", `${files}&assistant=gemini&severity=HIGH&offset=1000`],
      ...(agent ? ([["files, one agent", `${files}&assistant=${agent.id}`]] as Array<[string, string]>) : []),
    ];
    const measured: TMeasurement[] = [];
    for (const [label, path] of paths) measured.push(await measure(label, gateway, { path, headers }, one));
    return { body, measured, cold };
  } finally {
    await gateway.stop();
  }
}

const ms = (l: TLatency) => `p50 ${l.p50} ms, p99 ${l.p99} ms`;

/** First scan of a 1,000,000-file demo workspace with the resource store, then the exposure reads on it. */
export const exposure1m: TScenario = {
  name: "exposure-1m",
  title: `first scan of a ${FILES.toLocaleString("en")}-file demo workspace with the resource store; inventory, sharing and graph reads on it`,
  run: async (settings) => {
    const db = await createTestDb();
    try {
      const owner = await seedOwnerWithKey(db.db, "enterprise");
      const r = await runChildReport<TReport>(
        "exposure",
        { BENCH_DATABASE_URL: db.url, BENCH_ORG_ID: owner.orgId, BENCH_FILES: String(FILES) },
        [HEAP_FLAG],
      );
      const ai = await aiReads(settings, db.url, owner.key);
      const [readiness, ...pages] = ai.measured as [TMeasurement, ...TMeasurement[]];
      const wantUsers = Math.round(FILES * DIRECTORY.usersPerFile);
      const wantGroups = Math.round(FILES * DIRECTORY.groupsPerFile);
      const aiChecks: TCheck[] = [
        {
          label: "directory at this size (issue 30: 25,000 users, 5,000 groups per 1M files)",
          // The issue's figures are for 1M files; smaller tenants keep their four broad groups.
          ok: FILES < 1_000_000 || (r.directory.users >= wantUsers && r.directory.groups >= wantGroups),
          detail: `${r.directory.users.toLocaleString("en")} users (${r.directory.assistantUsers.toLocaleString("en")} licensed for an assistant), ${r.directory.groups.toLocaleString("en")} groups (want ${wantUsers.toLocaleString("en")} / ${wantGroups.toLocaleString("en")})`,
        },
        {
          label: "1 % incremental rescan",
          ok: r.rescan.ms <= TARGETS.rescanMs && r.rescan.kind === "incremental",
          detail: `${(r.rescan.ms / 1000).toFixed(1)} s, kind ${r.rescan.kind} (target ≤ 10 s); reach: ${stageShare(r.rescan.stages)}`,
        },
        {
          label: "GET /api/exposure/ai",
          ok: readiness.p99Ms <= TARGETS.aiP99 && readiness.non2xx === 0,
          detail: `p50 ${readiness.p50Ms} ms, p99 ${readiness.p99Ms} ms (target p99 ≤ ${TARGETS.aiP99} ms)`,
        },
        ...pages.map((m) => ({
          label: `GET /api/exposure/ai/files: ${m.label}`,
          ok: m.p99Ms <= TARGETS.aiFilesP99 && m.non2xx === 0,
          detail: `p50 ${m.p50Ms} ms, p99 ${m.p99Ms} ms (target p99 ≤ ${TARGETS.aiFilesP99} ms)`,
        })),
      ];
      return {
        kind: "done",
        measurements: ai.measured,
        checks: [
          {
            label: "first scan",
            ok: r.scan.ms <= TARGETS.scanMs,
            detail: `${(r.scan.ms / 1000).toFixed(1)} s (target ≤ 90 s); reach: ${stageShare(r.stages)}`,
          },
          {
            label: "scanner peak RSS",
            ok: r.scanMaxRssMb <= TARGETS.rssMb,
            detail: `${r.scanMaxRssMb} MB (target ≤ 300 MB)`,
          },
          {
            label: "inventory search, users",
            ok: r.search.users.p99 <= TARGETS.searchP99,
            detail: ms(r.search.users),
          },
          {
            label: "inventory search, files",
            ok: r.search.files.p99 <= TARGETS.searchP99,
            detail: `${ms(r.search.files)} (${r.search.filesMatched} matches)`,
          },
          {
            label: "inventory search, files by name",
            ok: r.search.filesByName.p99 <= TARGETS.searchP99,
            detail: ms(r.search.filesByName),
          },
          {
            label: "sharing items by risk, first page",
            ok: r.sharing.firstPage.p99 <= TARGETS.sharingP99,
            detail: ms(r.sharing.firstPage),
          },
          {
            label: "sharing items by risk, offset 5,000",
            ok: r.sharing.offset5000.p99 <= TARGETS.sharingP99,
            detail: ms(r.sharing.offset5000),
          },
          {
            label: "graph page, 500 nodes",
            ok: r.graph.page500.p99 <= TARGETS.graphMs,
            detail: ms(r.graph.page500),
          },
          ...aiChecks,
        ],
        notes: [
          `${r.scan.resources.toLocaleString("en")} resources, ${r.scan.findingsNew.toLocaleString("en")} findings; ${r.sharing.total.toLocaleString("en")} sharing items; ${r.graph.totalNodes.toLocaleString("en")} graph nodes`,
          `reads after VACUUM (ANALYZE), as autovacuum leaves the tables after a load (${(r.vacuumMs / 1000).toFixed(0)} s, not in the scan's time)`,
          `first scan stages (ms): ${stageList(r.stages)}`,
          `rescan stages (ms): ${stageList(r.rescan.stages)}; new ${r.rescan.findingsNew}, resolved ${r.rescan.findingsResolved}`,
          `first GET /api/exposure/ai after the scan: ${ai.cold.join(", then ")}`,
          `readiness ${ai.body.score}; ${ai.body.assistants.map((a) => `${a.kind === "agent" ? "agent" : a.id}: ${a.reachableFiles.toLocaleString("en")} files (${a.sensitiveReachableFiles.toLocaleString("en")} sensitive), ${a.users} users`).join("; ")}`,
          `AI exposure reads over HTTP, one connection, ${settings.warmupSec} s warm-up + ${settings.durationSec} s each; ${GATEWAY_ENV_NOTE}`,
          `search term "${r.search.term}" (a user's e-mail local part: the user, and the files they own); reads over one connection, warm, 200 rounds after 20 warm-up`,
        ],
      };
    } finally {
      await db.drop();
    }
  },
};
