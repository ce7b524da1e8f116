import { hash } from "node:crypto";
import {
  ChangeCursorExpiredError,
  type TChangeCursor,
  type TChangeFeed,
  type TFileChange,
  type TSourceFile,
} from "../types";
import type { TDemoOverlayStore } from "../write";
import { fileAt } from "./files";
import { filesChangedSince, loadOverlay, overlayFile, type TOverlay } from "./overlay";
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
  overlay?: TOverlay,
): AsyncGenerator<TFileChange> {
  const r1 = shape.revision;
  if (r0 >= r1) return;
  const withOverlay = (file: TSourceFile, i: number) =>
    overlay && overlay.files.size > 0 ? overlayFile(file, overlay.files.get(file.id), i.toString(36)) : file;
  const growth = fileGrowth(shape);
  const slots = slotsAt(growth, r1);
  const mayDiffer = fileDiffer(shape, growth, r0, r1);
  for (let i = 0; i < slots; i++) {
    if (!mayDiffer(i)) continue;
    const clock = fileClock(shape, growth, i, r1);
    if (existsAt(clock, r1)) yield { kind: "file", file: withOverlay(fileAt(shape, i, driveIds, clock), i) };
    else if (existsAt(clock, r0))
      yield { kind: "removed", fileId: shape.flavour.fileId(rngFor(shape.words, STREAMS.file, i)) };
  }
}

/**
 * The files whose overlay entries were written after the cursor's overlay position (each once,
 * in index order, as it is now: the overlay applied), the ones that still exist. A cursor without
 * an overlay position (taken by a reader without the store) sees every entry.
 */
export function* overlayChanges(
  shape: TDemoShape,
  since: TChangeCursor,
  driveIds: readonly string[],
  overlay: TOverlay,
  skip: (index: number) => boolean,
): Generator<TFileChange> {
  const text = since.feeds.overlay;
  const position = text !== undefined && /^(0|[1-9][0-9]{0,15})$/.test(text) ? Number(text) : -Infinity;
  const growth = fileGrowth(shape);
  const slots = slotsAt(growth, shape.revision);
  for (const i of filesChangedSince(overlay, position)) {
    if (i >= slots || skip(i)) continue;
    const clock = fileClock(shape, growth, i, shape.revision);
    if (!existsAt(clock, shape.revision)) continue;
    const file = fileAt(shape, i, driveIds, clock);
    yield { kind: "file", file: overlayFile(file, overlay.files.get(file.id), i.toString(36)) };
  }
}

export function demoChangeFeed(
  shape: TDemoShape,
  seed: string,
  driveIds: readonly string[],
  store?: TDemoOverlayStore,
): TChangeFeed {
  const tenant = tenantFingerprint(shape, seed);
  // The overlay's position joins the cursor only where there is an overlay to read.
  const cursor = (overlay?: TOverlay): TChangeCursor => ({
    source: "demo",
    feeds: {
      revision: String(shape.revision),
      tenant,
      ...(store && overlay ? { overlay: String(overlay.version) } : {}),
    },
  });
  return {
    start: async () => cursor(await loadOverlay(store)),
    read: (since) => {
      let overlay: TOverlay | undefined;
      return {
        changes: (async function* () {
          const r0 = revisionOf(since, shape, tenant);
          // One load per read: what it holds is what the returned cursor says was read.
          overlay = await loadOverlay(store);
          const reported = new Set<number>();
          const pending = new Set(filesChangedSince(overlay, -Infinity));
          for await (const change of fileChanges(shape, r0, driveIds, overlay)) {
            if (change.kind === "file" && pending.size > 0) {
              const i = fileIndexOf(change.file);
              if (i !== null && pending.has(i)) reported.add(i);
            }
            yield change;
          }
          yield* overlayChanges(shape, since, driveIds, overlay, (i) => reported.has(i));
        })(),
        cursor: () => cursor(overlay),
      };
    },
  };
}

/** A generated file's index, from its owner permission's id (`<index base 36>-0`). */
function fileIndexOf(file: TSourceFile): number | null {
  const id = file.permissions[0]?.id;
  const match = id ? /^([0-9a-z]+)-0$/.exec(id) : null;
  return match?.[1] ? parseInt(match[1], 36) : null;
}
