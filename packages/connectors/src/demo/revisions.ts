import { hash01, STREAMS, type TSeedWords } from "./prng";
import type { TDemoShape } from "./shape";

// How the sandbox changes from one revision to the next, like a real tenant over a day: a small,
// deterministic share of files, users and grants is touched, some are added and some go away.
// Every answer here is a few hashes of (seed, index, revision): whether item i exists or was
// touched at revision R never needs the items before it, nor the revisions before R - LIFETIME.

/**
 * A touch lasts this many revisions: then the item returns to its original state (a link expires,
 * an elevation ends, an edit is reverted), which is itself a change. Bounding it keeps an item's
 * state at R a function of (seed, index, the last touch in (R − LIFETIME, R]).
 */
export const CHANGE_LIFETIME = 16;

/** Per item and revision. With the lifetime's reverts and the adds and removals, ~1 % of files change. */
export const FILE_TOUCH_RATE = 0.0045;
const FILE_ADDITION_SHARE = 0.001;
export const USER_TOUCH_RATE = 0.004;
const USER_JOIN_SHARE = 0.002;
/** Joiners stay long enough for the tenant to keep about a tenth more users than its size. */
const JOINER_SHARE = 0.1;
export const GRANT_TOUCH_RATE = 0.005;
const GRANT_ADD_SHARE = 0.003;

/**
 * Appended items: `perRevision` are born at each revision from 1 on, after the `base` ones, and
 * items go away at `removalRate` a revision, which keeps the count level (at least one item
 * comes a revision, so a small tenant's items also go faster).
 */
export type TGrowth = { base: number; perRevision: number; removalRate: number };

function growth(base: number, share: number, steady: number): TGrowth {
  const perRevision = Math.max(1, Math.round(base * share));
  return { base, perRevision, removalRate: Math.min(0.5, perRevision / Math.max(1, steady)) };
}

export function fileGrowth(shape: TDemoShape): TGrowth {
  return growth(shape.fileCount, FILE_ADDITION_SHARE, shape.fileCount);
}

/** Only joiners leave (the original users own the files): a steady tenth of the users are joiners. */
export function userGrowth(shape: TDemoShape): TGrowth {
  return growth(shape.userCount, USER_JOIN_SHARE, shape.userCount * JOINER_SHARE);
}

/** `revocable`: the grants that may be revoked (not the catalog's first grants, not a story's). */
export function grantGrowth(shape: TDemoShape, revocable = shape.grantCount): TGrowth {
  return growth(shape.grantCount, GRANT_ADD_SHARE, revocable);
}

/** Indices [0, slots) hold every item that exists at `revision` (and some that went away). */
export function slotsAt(growth: TGrowth, revision: number): number {
  return growth.base + revision * growth.perRevision;
}

/** The revision an item appeared: 0 for the original ones. */
export function birthOf(growth: TGrowth, index: number): number {
  return index < growth.base ? 0 : Math.floor((index - growth.base) / growth.perRevision) + 1;
}

/**
 * The revision an item goes away: a geometric draw after its birth, from one hash, so existence
 * at any revision costs O(1). `stream` keeps files, users and grants apart.
 */
export function endOf(words: TSeedWords, stream: number, index: number, birth: number, rate: number): number {
  const u = hash01(words, STREAMS.lifetime, index, stream);
  return birth + 1 + Math.floor(Math.log1p(-u) / Math.log1p(-rate));
}

export function touchedAt(words: TSeedWords, stream: number, index: number, revision: number, rate: number) {
  return hash01(words, stream, index, revision) < rate;
}

/** The latest revision in (R − LIFETIME, R], after the item's birth, that touched it; 0 if none. */
export function lastTouch(
  words: TSeedWords,
  stream: number,
  index: number,
  revision: number,
  rate: number,
  birth = 0,
): number {
  const floor = Math.max(birth + 1, revision - CHANGE_LIFETIME + 1);
  for (let r = revision; r >= floor; r--) if (hash01(words, stream, index, r) < rate) return r;
  return 0;
}

/**
 * A file's (birth, removal draw, last touch) at a revision: everything its state there depends
 * on. It goes away at the first revision r > birth where `gone < 1 − (1 − rate)^(r − birth)`
 * (a geometric lifetime, as endOf), compared rather than solved so a read can precompute the
 * bound for every original file.
 */
export type TFileClock = { birth: number; gone: number; keep: number; touch: number };

export function fileClock(shape: TDemoShape, growth: TGrowth, index: number, revision: number): TFileClock {
  const birth = birthOf(growth, index);
  return {
    birth,
    gone: hash01(shape.words, STREAMS.lifetime, index, STREAMS.fileTouch),
    keep: 1 - growth.removalRate,
    touch: lastTouch(shape.words, STREAMS.fileTouch, index, revision, FILE_TOUCH_RATE, birth),
  };
}

export function existsAt(clock: Omit<TFileClock, "touch">, revision: number): boolean {
  return clock.birth <= revision && clock.gone >= 1 - Math.pow(clock.keep, revision - clock.birth);
}

/**
 * Whether a file may differ between r0 and r1 (r0 < r1): it appeared or went away in between,
 * or its last touch is not the same at both. Cheap first: a hash for its removal, and only the
 * revisions that can make the last touch differ (new touches in (r0, r1], expiring ones in
 * (r0 − LIFETIME, r1 − LIFETIME]); the exact comparison is made for the few files they hit.
 */
export function fileDiffer(shape: TDemoShape, growth: TGrowth, r0: number, r1: number) {
  const w = shape.words;
  const keep = 1 - growth.removalRate;
  // The same expressions as existsAt, computed once for every original file (birth 0).
  const bound0 = 1 - Math.pow(keep, r0);
  const bound1 = 1 - Math.pow(keep, r1);
  return (index: number): boolean => {
    const birth = birthOf(growth, index);
    if (birth > r0) return true;
    const gone = hash01(w, STREAMS.lifetime, index, STREAMS.fileTouch);
    const b0 = birth === 0 ? bound0 : 1 - Math.pow(keep, r0 - birth);
    if (gone < b0) return false;
    const b1 = birth === 0 ? bound1 : 1 - Math.pow(keep, r1 - birth);
    if (gone < b1) return true;
    let hit = false;
    for (let r = Math.max(birth + 1, r0 + 1); r <= r1 && !hit; r++)
      hit = touchedAt(w, STREAMS.fileTouch, index, r, FILE_TOUCH_RATE);
    const high = Math.min(r0, r1 - CHANGE_LIFETIME);
    for (let r = Math.max(birth + 1, r0 - CHANGE_LIFETIME + 1); r <= high && !hit; r++)
      hit = touchedAt(w, STREAMS.fileTouch, index, r, FILE_TOUCH_RATE);
    if (!hit) return false;
    return (
      lastTouch(w, STREAMS.fileTouch, index, r0, FILE_TOUCH_RATE, birth) !==
      lastTouch(w, STREAMS.fileTouch, index, r1, FILE_TOUCH_RATE, birth)
    );
  };
}
