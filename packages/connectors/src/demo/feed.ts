import { hash } from "node:crypto";
import { ChangeCursorExpiredError, type TChangeCursor, type TChangeFeed, type TFileChange } from "../types";
import { fileAt } from "./files";
import { rngFor, STREAMS } from "./prng";
import { existsAt, fileClock, fileDiffer, fileGrowth, slotsAt } from "./revisions";
import type { TDemoShape } from "./shape";

/** How far back a cursor may be: older ones are expired, as a source's tokens are, and the scan reads everything. */
export const MAX_FEED_REVISIONS = 1000;

/**
 * Which tenant a cursor belongs to: the seed, flavour, size and clock. A cursor of another tenant
 * (or of the same connector resized) would apply the wrong changes, so it is refused as expired.
 */
export function tenantFingerprint(shape: TDemoShape, seed: string): string {
  const key = [seed, shape.type, shape.fileCount, shape.userCount, shape.epochMs].join("\u0000");
  return hash("sha256", key, "hex").slice(0, 16);
}

function revisionOf(since: TChangeCursor, shape: TDemoShape, tenant: string): number {
  const expired = (why: string) => new ChangeCursorExpiredError(`demo change cursor ${why}`, "revision");
  if (since.source !== "demo") throw expired(`is of another source (${since.source})`);
  if (since.feeds.tenant !== tenant) throw expired("is of another tenant or size");
  const text = since.feeds.revision ?? "";
  if (!/^(0|[1-9][0-9]{0,9})$/.test(text)) throw expired("has no revision");
  const revision = Number(text);
  if (revision > shape.revision)
    throw expired(`is ahead of the tenant (revision ${revision} > ${shape.revision})`);
  if (shape.revision - revision > MAX_FEED_REVISIONS)
    throw expired(`is more than ${MAX_FEED_REVISIONS} revisions old`);
  return revision;
}

/**
 * Every file change between revision r0 and the shape's: each file that appeared or changed, once,
 * as it is now, and each that went away. Only a few hashes per index decide which; only those
 * files are generated, in index order.
 */
export async function* fileChanges(
  shape: TDemoShape,
  r0: number,
  driveIds: readonly string[],
): AsyncGenerator<TFileChange> {
  const r1 = shape.revision;
  if (r0 >= r1) return;
  const growth = fileGrowth(shape);
  const slots = slotsAt(growth, r1);
  const mayDiffer = fileDiffer(shape, growth, r0, r1);
  for (let i = 0; i < slots; i++) {
    if (!mayDiffer(i)) continue;
    const clock = fileClock(shape, growth, i, r1);
    if (existsAt(clock, r1)) yield { kind: "file", file: fileAt(shape, i, driveIds, clock) };
    else if (existsAt(clock, r0))
      yield { kind: "removed", fileId: shape.flavour.fileId(rngFor(shape.words, STREAMS.file, i)) };
  }
}

export function demoChangeFeed(shape: TDemoShape, seed: string, driveIds: readonly string[]): TChangeFeed {
  const tenant = tenantFingerprint(shape, seed);
  const cursor = (): TChangeCursor => ({
    source: "demo",
    feeds: { revision: String(shape.revision), tenant },
  });
  return {
    start: async () => cursor(),
    read: (since) => ({
      changes: (async function* () {
        yield* fileChanges(shape, revisionOf(since, shape, tenant), driveIds);
      })(),
      cursor,
    }),
  };
}
