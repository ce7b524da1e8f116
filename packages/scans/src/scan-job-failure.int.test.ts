import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectors, createDb, lockOrg, organizations, scans, type Db, type DbHandle } from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { SCAN_ATTEMPTS } from "./deps";
import { runScanJob } from "./scan-job";
import { scanOnlyDeps } from "./testing";

// A scan job's try that fails on the database is logged with the scan id and PostgreSQL's reason
// (message and SQLSTATE), not drizzle's "Failed query: <sql> params: …" alone; the last try also
// fails the scan with that reason instead of leaving it RUNNING.

type TLine = { level: string; obj: Record<string, unknown>; msg: string | undefined };

let tdb: TestDb;
const handles: DbHandle[] = [];

beforeAll(async () => {
  tdb = await createTestDb();
});
afterAll(async () => {
  for (const h of handles) await h.close();
  await tdb.drop();
});

function capture() {
  const lines: TLine[] = [];
  const at = (level: string) => (obj: object, msg?: string) =>
    lines.push({ level, obj: obj as Record<string, unknown>, msg });
  return { lines, log: { info: at("info"), warn: at("warn"), error: at("error"), debug: at("debug") } };
}

async function queuedScan() {
  const [org] = await tdb.db.insert(organizations).values({ name: "Locked", plan: "business" }).returning();
  if (!org) throw new Error("no org");
  const [c] = await tdb.db
    .insert(connectors)
    .values({
      orgId: org.id,
      type: "google_workspace",
      displayName: "Demo",
      mode: "demo",
      config: { fileCount: 5 },
    })
    .returning();
  if (!c) throw new Error("no connector");
  const [scan] = await tdb.db
    .insert(scans)
    .values({ orgId: org.id, connectorId: c.id, connectorName: c.displayName, trigger: "manual" })
    .returning();
  if (!scan) throw new Error("no scan");
  return { scanId: scan.id, orgId: org.id };
}

/** Runs `work` while another session holds a lock the scan waits on. */
async function withLockHeld<T>(lock: (tx: Db) => Promise<unknown>, work: () => Promise<T>): Promise<T> {
  let release: () => void = () => {};
  let locked: () => void = () => {};
  const isLocked = new Promise<void>((r) => (locked = r));
  const held = tdb.db.transaction(async (tx) => {
    await lock(tx);
    locked();
    await new Promise<void>((r) => (release = r));
  });
  await isLocked;
  try {
    return await work();
  } finally {
    release();
    await held;
  }
}

describe("a scan job failing on the database", () => {
  it("logs a lock timeout's message and SQLSTATE 55P03 with the scan id, and retries", async () => {
    // lock_timeout for this pool's sessions only: the scan's RUNNING update gives up after 200 ms.
    const url = new URL(tdb.url);
    url.searchParams.set("options", "-c lock_timeout=200");
    const handle = createDb({ databaseUrl: url.toString() });
    handles.push(handle);
    const { lines, log } = capture();
    const deps = { ...scanOnlyDeps(handle.db), log };
    const { scanId } = await queuedScan();

    // The scan row locked: the scan's first write (RUNNING) waits on it.
    const err = await withLockHeld(
      (tx) => tx.select({ id: scans.id }).from(scans).where(eq(scans.id, scanId)).for("update"),
      () => runScanJob(deps, scanId, 1).catch((e: unknown) => e),
    );
    expect((err as Error).message).toMatch(/^Failed query: update "scans"/);
    const failed = lines.filter((l) => l.level === "error");
    expect(failed).toEqual([
      {
        level: "error",
        msg: "scan job failed; will retry",
        obj: {
          scanId,
          attempt: 1,
          final: false,
          err: expect.stringMatching(
            /^Failed query: update "scans" set "status" = \$1, "started_at" = \$2 where/,
          ),
          cause: { message: "canceling statement due to lock timeout", code: "55P03" },
        },
      },
    ]);
    // Not the parameters (tenant data can be among them).
    expect(JSON.stringify(failed)).not.toContain("params:");
    const [row] = await tdb.db.select().from(scans).where(eq(scans.id, scanId));
    expect(row?.status).toBe("QUEUED");
  });

  it("logs a statement timeout (57014) on the last try and fails the scan with PostgreSQL's reason", async () => {
    const handle = createDb({ databaseUrl: tdb.url, statementTimeoutMs: 200 });
    handles.push(handle);
    const { lines, log } = capture();
    const deps = { ...scanOnlyDeps(handle.db), log };
    const { scanId, orgId } = await queuedScan();

    // The organization's default-rules lock held: the scan, RUNNING, waits for it to make sure
    // of its rules, past the statement timeout.
    await withLockHeld(
      (tx) => tx.execute(lockOrg(orgId, "default-rules")),
      () => runScanJob(deps, scanId, SCAN_ATTEMPTS).catch(() => {}),
    );
    expect(
      lines.filter((l) => l.level === "error").map((l) => [l.msg, l.obj.scanId, l.obj.final, l.obj.cause]),
    ).toEqual([
      [
        "scan job failed",
        scanId,
        true,
        { message: "canceling statement due to statement timeout", code: "57014" },
      ],
    ]);
    const [row] = await tdb.db.select().from(scans).where(eq(scans.id, scanId));
    expect([row?.status, row?.error]).toEqual(["FAILED", "canceling statement due to statement timeout"]);
  });
});
