import type { TSourceUser } from "../types";
import { hash01, pickAt, rngFor, STREAMS } from "./prng";
import { birthOf, endOf, lastTouch, USER_TOUCH_RATE, userGrowth } from "./revisions";
import { DAY_MS, isoAt, type TDemoShape } from "./shape";
import { FIRST_NAMES, LAST_NAMES } from "./vocabulary";

const NAME_SPACE = FIRST_NAMES.length * LAST_NAMES.length;
const GOLDEN_FRACTION = 0.6180339887498949;
const SQRT2_FRACTION = 0.41421356237309515;
export const NO_MFA_RATE = 0.16;
/**
 * The share of users licensed for the suite's AI assistant (Microsoft 365 Copilot, Gemini): a
 * pilot rollout, administrators first. Joiners have none yet.
 */
export const ASSISTANT_RATE = 0.35;
const SQRT3_FRACTION = 0.7320508075688772;

/** frac(index·α + seed offset): evenly spread over [0, 1) for any run of consecutive indices. */
function weyl(shape: TDemoShape, index: number, alpha: number): number {
  const offset = ((shape.words[3] ^ Math.floor(alpha * 1e9)) >>> 0) / 4294967296;
  const v = index * alpha + offset;
  return v - Math.floor(v);
}

/** Unique by construction: index → a (first, last) pair through a bijection, then a counter. */
function nameParts(index: number): { first: string; last: string; suffix: string } {
  const slot = (index * 7919) % NAME_SPACE;
  const round = Math.floor(index / NAME_SPACE);
  return {
    first: pickAt(FIRST_NAMES, slot % FIRST_NAMES.length),
    last: pickAt(LAST_NAMES, Math.floor(slot / FIRST_NAMES.length)),
    suffix: round === 0 ? "" : String(round + 1),
  };
}

export function userEmailAt(shape: TDemoShape, index: number): string {
  const named = shape.named.get(index);
  if (named) return named.email;
  const { first, last, suffix } = nameParts(index);
  return `${first}.${last}${suffix}@${shape.domain}`;
}

export function externalPersonEmail(index: number, domain: string, personal: boolean): string {
  const { first, last } = nameParts(index + 1_000_003);
  return personal ? `${first}${last}${index % 1000}@${domain}` : `${first}.${last}@${domain}`;
}

function capitalise(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/**
 * Revision at which a user without MFA turns it on (Infinity: never). Half of them do, spread over
 * the first revisions, so rescans resolve identity findings a few at a time.
 */
function mfaEnabledAtRevision(shape: TDemoShape, index: number): number {
  if (index === shape.scripted.enablesMfa) return 1;
  const h = hash01(shape.words, STREAMS.mfa, index, 0);
  return h < 0.5 ? 1 + Math.floor(h * 12) : Infinity;
}

/** The revisions a joiner arrives and leaves (Infinity for the original users, who stay). */
export function userLife(shape: TDemoShape, index: number): { birth: number; end: number } {
  const growth = userGrowth(shape);
  const birth = birthOf(growth, index);
  if (birth === 0) return { birth, end: Infinity };
  return { birth, end: endOf(shape.words, STREAMS.userTouch, index, birth, growth.removalRate) };
}

export function userAt(shape: TDemoShape, index: number): TSourceUser {
  if (index >= shape.userCount) return joinerAt(shape, index);
  const rng = rngFor(shape.words, STREAMS.user, index);
  // What stopped, or never started, is dated from the epoch; active users keep signing in, so
  // their last sign-in follows the tenant's clock.
  const now = shape.epochMs;
  const { first, last, suffix } = nameParts(index);
  const isAdmin = index < shape.adminCount;
  const s = shape.scripted;
  const scripted = index >= s.enablesMfa && index <= s.massDeletion;

  // Low-discrepancy sequences rather than coin flips: proportions hold even for small tenants.
  let mfaEnabled: boolean;
  if (index === 1 || index === s.enablesMfa) mfaEnabled = false;
  else if (index === 0 || scripted) mfaEnabled = true;
  else mfaEnabled = weyl(shape, index, SQRT2_FRACTION) >= NO_MFA_RATE;
  if (!mfaEnabled && shape.revision >= mfaEnabledAtRevision(shape, index)) mfaEnabled = true;

  const roll = weyl(shape, index, GOLDEN_FRACTION);
  let suspended = false;
  let lastLoginMs: number | null;
  let createdMs = now - (120 + rng.int(1900)) * DAY_MS - rng.int(DAY_MS);
  if (index === s.reactivated) {
    // Silent for months, then signs in two days ago (the behaviour engine's reactivation story).
    lastLoginMs = now - 2 * DAY_MS + 3_600_000;
  } else if (!isAdmin && !scripted && roll < 0.03) {
    suspended = true;
    lastLoginMs = now - (120 + rng.int(400)) * DAY_MS - rng.int(DAY_MS);
  } else if (!isAdmin && !scripted && roll < 0.11) {
    lastLoginMs = now - (91 + rng.int(500)) * DAY_MS - rng.int(DAY_MS);
  } else if (!isAdmin && !scripted && roll < 0.13) {
    lastLoginMs = null;
    if (rng.chance(0.5)) createdMs = now - (1 + rng.int(40)) * DAY_MS - rng.int(DAY_MS);
  } else {
    // Active: most signed in within days, a tail within the month.
    const r = rng.next();
    lastLoginMs = shape.nowMs - Math.floor(r * r * 25 * DAY_MS) - rng.int(3_600_000);
  }
  if (lastLoginMs !== null && lastLoginMs < createdMs) createdMs = lastLoginMs - 30 * DAY_MS;

  const user: TSourceUser = {
    id: shape.flavour.userId(rng),
    email: userEmailAt(shape, index),
    name:
      shape.named.get(index)?.name ?? `${capitalise(first)} ${capitalise(last)}${suffix ? ` ${suffix}` : ""}`,
    isAdmin,
    mfaEnabled,
    suspended,
    lastLoginAt: lastLoginMs === null ? null : isoAt(lastLoginMs),
    createdAt: isoAt(createdMs),
    assistants:
      isAdmin || weyl(shape, index, SQRT3_FRACTION) < ASSISTANT_RATE ? [shape.flavour.assistant] : [],
  };
  // Admins and the scripted users keep their stories; everyone else may be touched.
  if (isAdmin || scripted) return user;
  const touch = lastTouch(shape.words, STREAMS.userTouch, index, shape.revision, USER_TOUCH_RATE);
  return touch === 0 ? user : touchedUser(shape, user, index, touch);
}

/**
 * A touch on a user, lasting CHANGE_LIFETIME revisions: suspended (then reinstated), made an
 * administrator (then demoted: a temporary elevation), or renamed (the name, not the address).
 */
function touchedUser(shape: TDemoShape, user: TSourceUser, index: number, touch: number): TSourceUser {
  const k = hash01(shape.words, STREAMS.userTouch, index, -touch);
  if (k < 0.4 && !user.suspended) return { ...user, suspended: true };
  if (k < 0.6) return { ...user, isAdmin: true };
  const last = pickAt(LAST_NAMES, Math.floor(k * 1e6) % LAST_NAMES.length);
  return { ...user, name: `${user.name.split(" ")[0] ?? ""} ${capitalise(last)}` };
}

/**
 * A user who joined at a later revision: created that day, signing in from the next, without MFA
 * until they enrol a few revisions later (a quarter never do). Joiners own no files (files are
 * owned by the original users), so their leaving takes nothing with it.
 */
function joinerAt(shape: TDemoShape, index: number): TSourceUser {
  const rng = rngFor(shape.words, STREAMS.user, index);
  const { first, last, suffix } = nameParts(index);
  const { birth } = userLife(shape, index);
  const createdMs = shape.epochMs + birth * DAY_MS - 1 - rng.int(DAY_MS / 2);
  const signsIn = shape.revision > birth;
  const enrols = rng.chance(0.75) ? birth + 1 + rng.int(5) : Infinity;
  return {
    id: shape.flavour.userId(rng),
    email: userEmailAt(shape, index),
    name:
      shape.named.get(index)?.name ?? `${capitalise(first)} ${capitalise(last)}${suffix ? ` ${suffix}` : ""}`,
    isAdmin: false,
    mfaEnabled: shape.revision >= enrols,
    suspended: false,
    lastLoginAt: signsIn ? isoAt(shape.nowMs - 1 - rng.int(DAY_MS / 2)) : null,
    createdAt: isoAt(createdMs),
    assistants: [],
  };
}

/** Signed in within the activity window and not suspended: produces day-to-day activity. */
export function isActiveUser(user: TSourceUser, shape: TDemoShape): boolean {
  if (user.suspended || user.lastLoginAt === null) return false;
  return Date.parse(user.lastLoginAt) >= shape.nowMs - 30 * DAY_MS;
}
