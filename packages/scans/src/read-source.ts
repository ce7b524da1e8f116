import {
  ChangeCursorExpiredError,
  type TAppGrant,
  type TChangeCursor,
  type TChangeRead,
  type TCoverageGap,
  type TSourceAdapter,
  type TSourceGroup,
  type TWorkspace,
} from "@posture/connectors";
import type { TCheckResult, TTenantCheck } from "@posture/benchmarks";
import { newId, type TAiReachCarry } from "@posture/db";
import {
  createRuleEngine,
  DEFAULT_BROAD_GROUP_THRESHOLD,
  stageDetections,
  tenantCheckFindings,
  type TDetectionStage,
  type TFullScanReason,
  type TRuleEngine,
} from "@posture/posture";
import type { TSnapshotMode, TSnapshotResult, TWorkspaceSink } from "@posture/workspace";
import { rulesKeyOf, type TScanPlan } from "./cursor";
import { readTenantSettings } from "./tenant-settings";

/** A scan's read, committed to the store: everything the findings stage needs, and nothing else. */
export type TCommittedRead = {
  kind: "full" | "incremental";
  fullReason: TFullScanReason | null;
  /** This attempt's staged detections (scan_detections.run_id). */
  runId: string;
  /** The app grants as read (the findings transaction replaces the stored ones with them). */
  grants: TAppGrant[];
  tenantChecks: TCheckResult[];
  settingsGaps: TCoverageGap[];
  /** Users, files, shared drives and app grants: read (full) or stored after the changes (incremental). */
  resourceCount: number;
  /** Where the change feeds stand after this read; null for a source without them. */
  cursor: TChangeCursor | null;
  rulesKey: string;
  /** Incremental only: the files re-evaluated or removed (their findings alone are diffed). */
  fileScope?: string[];
  /** The store's versions around this snapshot and whether its files changed (the AI reach refresh's carry). */
  reachCarry: TAiReachCarry;
};

const carryOf = (snapshot: TSnapshotResult): TAiReachCarry => ({
  filesChanged: snapshot.filesChanged,
  before: snapshot.storeBefore,
  after: snapshot.storeAfter,
});

export type TReadScope = {
  scanId: string;
  trusted: readonly string[];
  /** The organization's broad-group threshold (members); absent: the default. */
  broadGroupThreshold?: number;
  now: Date;
  checks: readonly TTenantCheck[];
  openStore: (workspace: TWorkspace, mode: TSnapshotMode) => Promise<TWorkspaceSink>;
  /** Open file findings whose file the store lacks (only asked when the store ran ahead of them). */
  orphans: () => Promise<string[]>;
  /** Told what the scan is, when it starts and again when an incremental one falls back to a full read. */
  announce: (kind: "full" | "incremental", reason: TFullScanReason | null) => Promise<void>;
  /** Told each stage of the read as it ends (the scan's per-stage timing, `stageClock`). */
  mark?: (stage: TReadStage) => void;
  /** The directory's groups, read by `readSource` before anything else (set by it). */
  groups?: readonly TSourceGroup[];
};

/** The read's stages, in order; files include the rules and the store's writes for them. */
export type TReadStage = "groups" | "users" | "files" | "drives" | "apps" | "settings" | "commit";

/** What a read fed the engine and the store: the hand-off from the sinks to the commit. */
type TSinks = {
  engine: TRuleEngine;
  store: TWorkspaceSink;
  detections: TDetectionStage;
  tick: () => Promise<void>;
};

const YIELD_EVERY = 2_000;

/**
 * Reads the source into the rule engine and the resource store, and commits the store's snapshot:
 * the whole source (a full scan), or the files changed since the plan's cursor with everything
 * else whole (an incremental one). An incremental read whose cursor expired starts again as a
 * full read, in this job.
 */
export async function readSource(
  adapter: TSourceAdapter,
  plan: TScanPlan,
  scope: TReadScope,
): Promise<TCommittedRead> {
  const workspace = await adapter.workspace();
  // The directory's groups first, whole: reach and the broad-group rule need them before any
  // file, and the rules key covers them (a group that grew or shrank makes the scan full).
  const groups: TSourceGroup[] = [];
  if (adapter.groups) for await (const g of adapter.groups()) groups.push(g);
  scope.mark?.("groups");
  const broadGroupThreshold = scope.broadGroupThreshold ?? DEFAULT_BROAD_GROUP_THRESHOLD;
  const rulesKey = rulesKeyOf(workspace.internalDomains, scope.trusted, { broadGroupThreshold, groups });
  scope = { ...scope, broadGroupThreshold, groups };
  if (plan.kind === "incremental" && plan.rulesKey !== rulesKey)
    plan = { kind: "full", reason: "rules_changed" };
  if (plan.kind === "incremental") {
    await scope.announce("incremental", null);
    try {
      return await readChanges(adapter, {
        ...scope,
        workspace,
        rulesKey,
        since: plan.since,
        storeAhead: plan.storeAhead,
      });
    } catch (err) {
      if (!(err instanceof ChangeCursorExpiredError)) throw err;
      plan = { kind: "full", reason: "cursor_expired" };
    }
  }
  await scope.announce("full", plan.reason);
  return readEverything(adapter, { ...scope, workspace, rulesKey, reason: plan.reason });
}

type TFullRead = TReadScope & { workspace: TWorkspace; rulesKey: string; reason: TFullScanReason };
type TChangesRead = TReadScope & {
  workspace: TWorkspace;
  rulesKey: string;
  since: TChangeCursor;
  storeAhead: boolean;
};

async function readEverything(adapter: TSourceAdapter, read: TFullRead): Promise<TCommittedRead> {
  // Taken before the read: what changes while it runs is the next incremental scan's.
  const cursor = adapter.changeFeed ? await adapter.changeFeed.start() : null;
  const { runId, grants, settings, streamed, snapshot } = await streamSource(
    adapter,
    read,
    "full",
    async (sinks) => {
      for await (const f of adapter.files()) {
        await sinks.detections.add(sinks.engine.addFile(f));
        await sinks.store.file(f);
        await sinks.tick();
      }
    },
  );
  return {
    kind: "full",
    fullReason: read.reason,
    runId,
    grants,
    ...settings,
    resourceCount: streamed,
    cursor,
    rulesKey: read.rulesKey,
    reachCarry: carryOf(snapshot),
  };
}

async function readChanges(adapter: TSourceAdapter, read: TChangesRead): Promise<TCommittedRead> {
  const feed = adapter.changeFeed;
  if (!feed) throw new ChangeCursorExpiredError("the source has no change feed any more");
  let changes: TChangeRead | undefined;
  const scope = new Set<string>();
  const { runId, grants, settings, snapshot } = await streamSource(
    adapter,
    read,
    "incremental",
    async (sinks) => {
      changes = feed.read(read.since);
      for await (const change of changes.changes) {
        switch (change.kind) {
          case "file": {
            const id = change.file.id;
            // Reported again: the last report wins, so the earlier one's detections go.
            if (scope.has(id)) await sinks.detections.withdraw("file", id);
            scope.add(id);
            await sinks.detections.add(sinks.engine.addFile(change.file));
            await sinks.store.file(change.file);
            break;
          }
          case "removed":
            if (scope.has(change.fileId)) await sinks.detections.withdraw("file", change.fileId);
            scope.add(change.fileId);
            await sinks.store.removeFile(change.fileId);
            break;
          case "ownerGone":
            await sinks.store.removeOwner(change.ownerEmail);
            break;
          case "driveGone":
            await sinks.store.removeDrive(change.driveId);
            break;
        }
        await sinks.tick();
      }
    },
  );
  if (!changes) throw new Error("the change feed was not read");
  // The store knows which files the gone owners and drives took with them; an earlier attempt's
  // removals are found among the findings.
  const removed = [...snapshot.removedFileIds, ...(read.storeAhead ? await read.orphans() : [])];
  return {
    kind: "incremental",
    fullReason: null,
    runId,
    grants,
    ...settings,
    resourceCount: snapshot.users + snapshot.files + snapshot.drives + snapshot.grants,
    cursor: changes.cursor(),
    rulesKey: read.rulesKey,
    fileScope: [...scope, ...removed],
    reachCarry: carryOf(snapshot),
  };
}

/**
 * The read's stages over the sinks, in the source's order: users, files (`readFiles`: all of them,
 * or the changes), shared drives, app grants, the findings only the whole tenant shows, the
 * tenant's settings; then the snapshot commits, the staged detections with it. Demo sources
 * generate synchronously, so the loop yields to the event loop now and then: a 100k-file scan must
 * not stall HTTP (embedded mode) or the worker's lock renewal.
 */
async function streamSource(
  adapter: TSourceAdapter,
  read: TReadScope & { workspace: TWorkspace },
  mode: TSnapshotMode,
  readFiles: (sinks: TSinks) => Promise<void>,
): Promise<{
  /** Resources (and changes) streamed through the sinks. */
  streamed: number;
  runId: string;
  grants: TAppGrant[];
  settings: Pick<TCommittedRead, "tenantChecks" | "settingsGaps">;
  snapshot: TSnapshotResult;
}> {
  const groups = read.groups ?? [];
  const engine = createRuleEngine({
    internalDomains: read.workspace.internalDomains,
    trustedDomains: read.trusted,
    now: read.now,
    groups,
    ...(read.broadGroupThreshold === undefined ? {} : { broadGroupThreshold: read.broadGroupThreshold }),
  });
  const store = await read.openStore(read.workspace, mode);
  const runId = newId("run");
  const detections = stageDetections(store.write, { scanId: read.scanId, runId });
  let ticks = 0;
  const tick = async () => {
    if (++ticks % YIELD_EVERY === 0) await new Promise(setImmediate);
  };
  const sinks: TSinks = { engine, store, detections, tick };
  const grants: TAppGrant[] = [];
  const mark = read.mark ?? (() => {});
  let settings: Pick<TCommittedRead, "tenantChecks" | "settingsGaps">;
  try {
    await store.groups(groups);
    for await (const u of adapter.users()) {
      await detections.add(engine.addUser(u));
      await store.user(u);
      await tick();
    }
    mark("users");
    await readFiles(sinks);
    mark("files");
    for await (const d of adapter.sharedDrives()) {
      await detections.add(engine.addSharedDrive(d));
      await store.drive(d);
      await tick();
    }
    mark("drives");
    for await (const g of adapter.appGrants()) {
      engine.addAppGrant(g);
      await store.grant(g);
      grants.push(g);
      await tick();
    }
    await detections.add(engine.finish());
    mark("apps");
    // The tenant's configuration against its benchmark: failing checks are findings like any other.
    settings = await readTenantSettings(adapter, read.checks);
    await detections.add(tenantCheckFindings(settings.tenantChecks));
    await detections.flush();
    mark("settings");
  } catch (err) {
    await store.abort();
    throw err;
  }
  const snapshot = await store.commit();
  mark("commit");
  return { streamed: ticks, runId, grants, settings, snapshot };
}
