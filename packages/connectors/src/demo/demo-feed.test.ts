import { describe, expect, it } from "vitest";
import { collect } from "../../../fakes/src/adapter-harness";
import {
  ChangeCursorExpiredError,
  type TChangeCursor,
  type TChangeFeed,
  type TFileChange,
  type TSourceFile,
} from "../types";
import { createDemoAdapter, type TDemoOptions } from "./index";

const EPOCH = new Date("2026-03-02T09:00:00.000Z");

function feedOf(opts: TDemoOptions): TChangeFeed {
  const feed = createDemoAdapter(opts).changeFeed;
  if (!feed) throw new Error("the demo adapter has no change feed");
  return feed;
}

async function filesAt(opts: TDemoOptions, revision: number): Promise<Map<string, TSourceFile>> {
  const files = await collect(createDemoAdapter({ ...opts, revision }).files());
  return new Map(files.map((f) => [f.id, f]));
}

async function changesBetween(opts: TDemoOptions, r0: number, r1: number) {
  const since = await feedOf({ ...opts, revision: r0 }).start();
  const read = feedOf({ ...opts, revision: r1 }).read(since);
  const changes = await collect(read.changes);
  return { changes, cursor: read.cursor() };
}

const sorted = (files: Map<string, TSourceFile>) => [...files.entries()].sort(([a], [b]) => (a < b ? -1 : 1));

describe.each<[string, TDemoOptions]>([
  ["a 900-file Google tenant", { seed: "feed-a", type: "google_workspace", fileCount: 900, epoch: EPOCH }],
  [
    "a 4,000-file Microsoft tenant with 60 users",
    { seed: "feed-b", type: "microsoft_365", fileCount: 4000, userCount: 60, epoch: EPOCH },
  ],
])("the demo change feed of %s", (_name, opts) => {
  it.each([
    [0, 1],
    [0, 3],
    [5, 6],
    [7, 30],
    [2, 60],
  ])("turns the files at revision %i into exactly those at %i, each change once", async (r0, r1) => {
    const before = await filesAt(opts, r0);
    const after = await filesAt(opts, r1);
    const { changes, cursor } = await changesBetween(opts, r0, r1);
    const ids = changes.map((c) => (c.kind === "file" ? c.file.id : c.kind === "removed" ? c.fileId : ""));
    expect(new Set(ids).size).toBe(changes.length);

    const applied = new Map(before);
    for (const change of changes) {
      if (change.kind === "file") applied.set(change.file.id, change.file);
      else if (change.kind === "removed") applied.delete(change.fileId);
      else throw new Error(`unexpected change ${change.kind}`);
    }
    expect(sorted(applied)).toEqual(sorted(after));
    // Tight: every reported file did change (or appear), every removal was a file at r0.
    for (const change of changes) {
      if (change.kind === "file") expect(change.file).not.toEqual(before.get(change.file.id));
      if (change.kind === "removed") expect(before.has(change.fileId)).toBe(true);
    }
    expect(cursor).toEqual(await feedOf({ ...opts, revision: r1 }).start());
    expect(cursor.feeds.revision).toBe(String(r1));
  });

  it("reports nothing when the tenant has not moved", async () => {
    const { changes } = await changesBetween(opts, 4, 4);
    expect(changes).toEqual([]);
  });

  it("changes about 1 % of the files a revision, with additions and removals", async () => {
    const base = opts.fileCount ?? 0;
    let total = 0;
    let removed = 0;
    let added = 0;
    for (let r = 1; r <= 12; r++) {
      const before = await filesAt(opts, r - 1);
      const { changes } = await changesBetween(opts, r - 1, r);
      total += changes.length;
      removed += changes.filter((c) => c.kind === "removed").length;
      added += changes.filter((c: TFileChange) => c.kind === "file" && !before.has(c.file.id)).length;
    }
    expect(total / 12 / base).toBeGreaterThan(0.005);
    expect(total / 12 / base).toBeLessThan(0.02);
    expect(removed).toBeGreaterThan(0);
    expect(added).toBeGreaterThanOrEqual(12);
  });
});

describe("demo change cursors", () => {
  const opts: TDemoOptions = { seed: "cursor", type: "google_workspace", fileCount: 300, epoch: EPOCH };

  async function readFrom(since: TChangeCursor, revision = 10) {
    return collect(feedOf({ ...opts, revision }).read(since).changes);
  }

  it("names the source, the revision and the tenant", async () => {
    const cursor = await feedOf({ ...opts, revision: 7 }).start();
    expect(cursor).toEqual({
      source: "demo",
      feeds: { revision: "7", tenant: expect.stringMatching(/^[0-9a-f]{16}$/) },
    });
  });

  it("expires a cursor of another tenant, size or clock, or of another source", async () => {
    for (const other of [
      { ...opts, seed: "another" },
      { ...opts, fileCount: 301 },
      { ...opts, userCount: 40 },
      { ...opts, epoch: new Date(EPOCH.getTime() + 3_600_000) },
    ]) {
      const since = await feedOf({ ...other, revision: 3 }).start();
      await expect(readFrom(since)).rejects.toBeInstanceOf(ChangeCursorExpiredError);
    }
    const mine = await feedOf({ ...opts, revision: 3 }).start();
    await expect(readFrom({ ...mine, source: "google_workspace" })).rejects.toBeInstanceOf(
      ChangeCursorExpiredError,
    );
  });

  it("expires a cursor ahead of the tenant, malformed, or more than 1,000 revisions old", async () => {
    const at = async (revision: number) => feedOf({ ...opts, revision }).start();
    await expect(readFrom(await at(11), 10)).rejects.toBeInstanceOf(ChangeCursorExpiredError);
    const mine = await at(3);
    for (const revision of ["", "-1", "1.5", "03", "x"])
      await expect(readFrom({ ...mine, feeds: { ...mine.feeds, revision } })).rejects.toBeInstanceOf(
        ChangeCursorExpiredError,
      );
    await expect(readFrom(await at(0), 1001)).rejects.toBeInstanceOf(ChangeCursorExpiredError);
    expect((await readFrom(await at(1), 1001)).length).toBeGreaterThan(0);
  });
});
