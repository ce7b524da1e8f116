import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { createApiKeyFor, createOrganization, createUser } from "@posture/account";
import { createEmbeddedDb, queryRows, type Db, type TScanTiming } from "@posture/db";
import { startGatewayChild } from "./gateway";
import type { TBenchSettings } from "../types";
import { peakRssMb, resetPeakRss, type TChild } from "./child";

/** A scan result as `POST /api/connectors/{id}/sync` and `GET …/scans/{scanId}` return it. */
export type TApiScan = {
  scanId: string;
  status: "QUEUED" | "RUNNING" | "COMPLETE" | "FAILED";
  resources: number;
  findingsNew: number;
  findingsResolved: number;
  postureScore: number;
  /** Added with incremental scans (issue 15); absent on a server that predates them. */
  kind?: "full" | "incremental";
  /** Where the scan's time went (issue 35): its wait in the queue, its total and each stage. */
  timing?: TScanTiming | null;
};

/**
 * How the gateway child runs the scans, as `pnpm start` does (`--with-scheduler`):
 * - `server`: DATABASE_URL and REDIS_URL — a sync's scan goes to BullMQ and the scheduler's
 *   workers, in the same process, run it;
 * - `embedded`: no DATABASE_URL — PGlite in a fresh DATA_DIR, jobs in process: the default;
 * - `in-process`: DATABASE_URL, no REDIS_URL and no scheduler: the gateway's own in-process
 *   runner (what the API scenarios timed before the two modes above).
 */
export type TApiScanMode = "server" | "embedded" | "in-process";

/**
 * The server does not yet do what the scenario drives (a sized demo connector): the scenario is
 * reported as skipped with this reason rather than timed on a workspace of the wrong size.
 */
export class ApiNotReadyError extends Error {}

/** One sync of the connector: its body, and what the scan that answered it took. */
export type TSyncStep = {
  label: string;
  body: { full?: boolean; demo?: { advance?: number } };
};
export type TSyncResult = TSyncStep & {
  ms: number;
  scan: TApiScan;
  /** The gateway's peak RSS during this sync, up to its scan's completion. */
  peakRssMb: number | null;
  /**
   * What the scan queued, after it: the activity job and the behaviour refresh, timed from the
   * scan's completion until the refresh wrote its baselines (null: not within the wait), the
   * connector's stored events by then, and the gateway's peak RSS over that time.
   */
  behaviour: { ms: number | null; activityEvents: number | null; peakRssMb: number | null };
};

/**
 * An organization with one OWNER who signs in with a password: the sync endpoint is for a
 * signed-in browser session (an API key is refused there), so the scenarios sign in as a user would.
 */
async function seedOwnerWithPassword(db: Db) {
  const org = await createOrganization(db, {
    name: `Bench ${randomBytes(3).toString("hex")}`,
    plan: "enterprise",
  });
  const password = randomBytes(12).toString("hex");
  const user = await createUser(db, {
    orgId: org.id,
    email: `bench-${randomBytes(4).toString("hex")}@example.test`,
    password,
    role: "OWNER",
  });
  // Unused by the syncs; kept so the organization looks like every other scenario's.
  await createApiKeyFor(db, { orgId: org.id, userId: user.id, name: "bench" });
  return { orgId: org.id, email: user.email, password };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * After a scan: waits until the behaviour refresh queued at the end of its activity job has
 * written the organization's baselines (each refresh stamps them), so the activity and the
 * refresh are timed on their own and never inside the next sync.
 */
async function waitForBehaviour(
  db: Db,
  q: { orgId: string; connectorId: string; since: Date; maxMs?: number },
): Promise<{ ms: number | null; activityEvents: number }> {
  const started = performance.now();
  const end = Date.now() + (q.maxMs ?? 900_000);
  let ms: number | null = null;
  while (Date.now() < end) {
    const [row] = await queryRows<{ done: boolean }>(
      db,
      sql`select coalesce(max(computed_at) > ${q.since.toISOString()}::timestamptz, false) as done
          from behavior_baselines where org_id = ${q.orgId}`,
    );
    if (row?.done) {
      ms = Math.round(performance.now() - started);
      break;
    }
    await sleep(250);
  }
  const [stored] = await queryRows<{ n: number }>(
    db,
    sql`select count(*)::int as n from activity_events where connector_id = ${q.connectorId}`,
  );
  return { ms, activityEvents: stored?.n ?? 0 };
}

/**
 * Waits until the gateway has used less than `idleMsPerSec` of CPU for two seconds in a row: a
 * scan queues the behaviour refresh, which runs in the same process after the sync answered, and
 * must not be timed as part of the next sync.
 */
async function settle(gateway: TChild, idleMsPerSec = 30, maxMs = 600_000): Promise<void> {
  const end = Date.now() + maxMs;
  let quiet = 0;
  let last = (await gateway.cpuMs()) ?? 0;
  while (Date.now() < end && quiet < 2) {
    await sleep(1_000);
    const now = (await gateway.cpuMs()) ?? 0;
    quiet = now - last < idleMsPerSec ? quiet + 1 : 0;
    last = now;
  }
}

/**
 * The whole product as a user drives it, over HTTP: the gateway's production build in its own
 * process with the scans in it (`mode`: `pnpm start` on PostgreSQL and Redis, or embedded on
 * PGlite, or the in-process job runner on PostgreSQL), an owner who signs in, a demo connector sized through `POST /api/connectors {…,
 * mode: "demo", demo: {files}}`, then each step's `POST /api/connectors/{id}/sync` timed from the
 * request to the scan's completion (a sync that answers 202 is followed on `GET …/scans/{scanId}`).
 * The activity job and behaviour refresh the scan queued are then timed on their own, and
 * finished, before the next step.
 */
/** What a scenario's `after` step may use: the running gateway, signed in as the owner. */
export type TApiSession = { url: string; cookie: string; connectorId: string; orgId: string };

export async function runApiScans<T = undefined>(
  settings: TBenchSettings,
  /** The PostgreSQL database of the `server` and `in-process` modes (null: `embedded`). */
  db: { db: Db; url: string } | null,
  input: {
    /** `in-process` unless told. */
    mode?: TApiScanMode;
    files: number;
    steps: TSyncStep[];
    /** Run after the last step, on the same gateway and connector (e.g. time other endpoints). */
    after?: (session: TApiSession) => Promise<T>;
  },
): Promise<{ connectorId: string; results: TSyncResult[]; after?: T }> {
  const mode = input.mode ?? "in-process";
  // Embedded: the database belongs to the gateway's process once it runs, so the owner is seeded
  // before it starts (which also keeps the first start's demo seed out of the timings: it seeds an
  // empty database only).
  const dataDir = mode === "embedded" ? await mkdtemp(join(tmpdir(), "bench-embedded-")) : null;
  let owner: Awaited<ReturnType<typeof seedOwnerWithPassword>>;
  if (dataDir) {
    const embedded = await createEmbeddedDb(join(dataDir, "pg"));
    try {
      await embedded.migrate();
      owner = await seedOwnerWithPassword(embedded.db);
    } finally {
      await embedded.close();
    }
  } else if (db) owner = await seedOwnerWithPassword(db.db);
  else throw new Error(`mode ${mode} needs a PostgreSQL database`);
  const gateway = await startGatewayChild(settings, db?.url ?? null, {
    mode,
    ...(dataDir ? { dataDir } : {}),
    jobsPrefix: `bench-${randomBytes(4).toString("hex")}`,
  });
  try {
    const call = async (
      method: string,
      path: string,
      cookie: string,
      body?: unknown,
    ): Promise<{ status: number; body: unknown; headers: Headers }> => {
      const res = await fetch(`${gateway.url}${path}`, {
        method,
        headers: { cookie, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      // The organization's request budget (60 a minute on a session) outlasts a 1M scan's polling
      // only if the poller waits when told to.
      if (res.status === 429) {
        await sleep(1_000 * Math.max(1, Number(res.headers.get("retry-after") ?? "1")));
        return call(method, path, cookie, body);
      }
      if (res.status >= 400) throw new Error(`${method} ${path} → ${res.status}: ${text.slice(0, 500)}`);
      return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null, headers: res.headers };
    };
    const signIn = await fetch(`${gateway.url}/api/auth/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: owner.email, password: owner.password }),
    });
    if (!signIn.ok) throw new Error(`sign-in → ${signIn.status}: ${await signIn.text()}`);
    const cookie = signIn.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const created = await call("POST", "/api/connectors", cookie, {
      type: "google_workspace",
      displayName: `Bench ${input.files.toLocaleString("en")} files`,
      mode: "demo",
      demo: { files: input.files },
    }).catch((err: Error) => {
      throw /→ 400/.test(err.message)
        ? new ApiNotReadyError(`the server refused a sized demo connector (${err.message})`)
        : err;
    });
    const connectorId = (created.body as { id: string }).id;
    const results: TSyncResult[] = [];
    for (const step of input.steps) {
      await settle(gateway);
      await resetPeakRss(gateway.pid);
      const started = performance.now();
      const sync = await call("POST", `/api/connectors/${connectorId}/sync`, cookie, step.body);
      let scan = sync.body as TApiScan;
      while (scan.status === "QUEUED" || scan.status === "RUNNING") {
        // A scan past the sync's two-minute wait takes minutes: every 2 s is precise enough, and
        // stays inside the request budget.
        await sleep(2_000);
        scan = (await call("GET", `/api/connectors/${connectorId}/scans/${scan.scanId}`, cookie))
          .body as TApiScan;
      }
      const ms = Math.round(performance.now() - started);
      // The sync's start: baselines stamped after it are this scan's refresh (the last step's finished before).
      const syncedAt = new Date(Date.now() - ms);
      if (scan.status !== "COMPLETE") {
        // The API's scan result does not say why; the row does (out of reach while embedded runs).
        const [row] = db
          ? await queryRows<{ error: string | null }>(
              db.db,
              sql`SELECT error FROM scans WHERE id = ${scan.scanId}`,
            )
          : [];
        throw new Error(`${step.label}: scan ended ${scan.status}: ${row?.error ?? "no error recorded"}`);
      }
      // A demo workspace holds its files plus users and drives: fewer resources than files means
      // the server ignored the size.
      if (results.length === 0 && scan.resources < input.files)
        throw new ApiNotReadyError(
          `the server ignored the demo size: ${scan.resources.toLocaleString("en")} resources for ${input.files.toLocaleString("en")} files`,
        );
      const scanPeak = await peakRssMb(gateway.pid);
      await resetPeakRss(gateway.pid);
      // Embedded: the baselines are in the gateway's PGlite, so the activity job and refresh are
      // timed until the gateway is idle instead.
      const behaviour = db
        ? await waitForBehaviour(db.db, { orgId: owner.orgId, connectorId, since: syncedAt })
        : await timeUntilIdle(gateway);
      results.push({
        ...step,
        ms,
        scan,
        peakRssMb: scanPeak,
        behaviour: { ...behaviour, peakRssMb: await peakRssMb(gateway.pid) },
      });
    }
    if (!input.after) return { connectorId, results };
    await settle(gateway);
    const after = await input.after({ url: gateway.url, cookie, connectorId, orgId: owner.orgId });
    return { connectorId, results, after };
  } finally {
    await gateway.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }
}

async function timeUntilIdle(gateway: TChild): Promise<{ ms: number | null; activityEvents: null }> {
  const started = performance.now();
  await settle(gateway);
  // settle() ends after two quiet seconds.
  return { ms: Math.max(0, Math.round(performance.now() - started) - 2_000), activityEvents: null };
}

export const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** A scan's `timing` as the API returned it: queue wait, then each stage, largest first marked. */
export const describeTiming = (t: TScanTiming | null | undefined) => {
  if (!t) return "timing not reported";
  const top = Math.max(...t.stages.map((s) => s.ms));
  const stages = t.stages
    .map((s) => `${s.stage} ${seconds(s.ms)}${s.ms === top ? " (most)" : ""}`)
    .join(", ");
  return `job ${seconds(t.totalMs)} after ${seconds(t.queuedMs)} queued: ${stages}`;
};

/** What a step's scan says about itself, for the notes. */
export const describeScan = (r: TSyncResult) =>
  `${r.label}: ${seconds(r.ms)} [${describeTiming(r.scan.timing)}], kind ${r.scan.kind ?? "not reported"}, ${r.scan.resources.toLocaleString("en")} resources, ` +
  `findings new ${r.scan.findingsNew.toLocaleString("en")}, resolved ${r.scan.findingsResolved.toLocaleString("en")}, score ${r.scan.postureScore}, peak RSS ${r.peakRssMb ?? "n/a"} MB; ` +
  `then activity job + behaviour refresh ${r.behaviour.ms === null ? "not finished" : seconds(r.behaviour.ms)} ` +
  `(${r.behaviour.activityEvents === null ? "n/a" : r.behaviour.activityEvents.toLocaleString("en")} events stored, peak RSS ${r.behaviour.peakRssMb ?? "n/a"} MB)`;
