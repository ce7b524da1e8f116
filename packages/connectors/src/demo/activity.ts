import type { TActivityEvent } from "../types";
import { grantAt, OAUTH_BURST_SIZE, type TDemoApp } from "./apps";
import { externalTarget } from "./files";
import { fnv1a, rngFor, STREAMS, type TRng } from "./prng";
import { DAY_MS, isoAt, type TDemoShape } from "./shape";
import { isActiveUser, userAt, userEmailAt } from "./users";

/** Thirteen ISO weeks: enough history for weekly baselines (and a dormant gap) on the first scan. */
export const ACTIVITY_DAYS = 91;
/** The reactivated account worked normally until this many days ago, then went silent. */
export const DORMANT_SINCE_DAYS = 60;
const HOUR_MS = 3_600_000;

type TTimedEvent = TActivityEvent & { ms: number };

const STORIES = ["reactivation", "sharing-spike", "bulk-access", "mass-deletion", "oauth-burst"];
const hex = (n: number, width: number) => (n >>> 0).toString(16).padStart(width, "0").slice(-width);

/**
 * An event's id as its source names it: Google Reports' `evt-…` keys here, the audit record's GUID
 * `Id` for Microsoft 365 (the Management Activity feed). Day (or story), user and index are encoded
 * in the GUID's fields, so ids stay unique and stable; the first field is a hash for looks.
 */
function eventId(shape: TDemoShape, key: string, day: number, user: number, k: number): string {
  if (shape.type !== "microsoft_365") return `evt-${key}`;
  return `${hex(fnv1a(`${shape.words[0]}:${key}`), 8)}-${hex(day, 4)}-4${hex(k >>> 12, 3)}-a${hex(k, 3)}-${hex(user, 12)}`;
}

function fileIdAt(shape: TDemoShape, index: number): string {
  return shape.flavour.fileId(rngFor(shape.words, STREAMS.file, index));
}

function externalTargetText(shape: TDemoShape, rng: TRng): string {
  const target = externalTarget(shape, rng);
  return target.emailAddress ?? target.domain;
}

/**
 * The five stories behaviour analytics should find: sharing spike, bulk access, reactivation,
 * OAuth burst, mass deletion.
 */
function scriptedEvents(shape: TDemoShape, apps: readonly TDemoApp[]): TTimedEvent[] {
  const s = shape.scripted;
  // The stories happened once, just before the tenant's epoch: later revisions do not replay them.
  const now = shape.epochMs;
  const events: TTimedEvent[] = [];
  const push = (
    story: string,
    k: number,
    ms: number,
    user: number,
    event: Omit<TActivityEvent, "id" | "at" | "actorEmail">,
  ) =>
    events.push({
      id: eventId(shape, `${story}-${k}`, 0xf000 + STORIES.indexOf(story), user, k),
      at: isoAt(ms),
      ms,
      actorEmail: userEmailAt(shape, user),
      ...event,
    });
  const rng = rngFor(shape.words, STREAMS.activity, -1);
  const randomFile = () => (shape.fileCount > 0 ? fileIdAt(shape, rng.int(shape.fileCount)) : undefined);

  const reactivatedAt = now - 2 * DAY_MS + HOUR_MS;
  push("reactivation", 0, reactivatedAt, s.reactivated, { type: "login" });
  for (let k = 1; k <= 30; k++) {
    push("reactivation", k, reactivatedAt + k * 240_000, s.reactivated, {
      type: k % 3 === 0 ? "download" : "file_access",
      resourceId: randomFile(),
    });
  }
  const spikeAt = now - 3 * DAY_MS + 10 * HOUR_MS;
  for (let k = 0; k < 40; k++) {
    push("sharing-spike", k, spikeAt + k * 135_000, s.sharingSpike, {
      type: "share_external",
      resourceId: randomFile(),
      target: externalTargetText(shape, rng),
    });
  }
  const bulkAt = now - DAY_MS + 2 * HOUR_MS;
  for (let k = 0; k < 250; k++) {
    push("bulk-access", k, bulkAt + k * 14_000, s.bulkAccess, {
      type: k % 4 === 0 ? "download" : "file_access",
      resourceId: randomFile(),
    });
  }
  // Files binned in a burst (a leaver clearing out, ransomware, a sync gone wrong): 120 in 40 minutes.
  // 120 different files (the metric counts files): consecutive ones from a random start.
  const deletionAt = now - 14 * HOUR_MS;
  const firstDeleted = shape.fileCount > 0 ? rng.int(shape.fileCount) : 0;
  for (let k = 0; k < 120; k++) {
    push("mass-deletion", k, deletionAt + k * 20_000, s.massDeletion, {
      type: "file_delete",
      ...(k < shape.fileCount ? { resourceId: fileIdAt(shape, (firstDeleted + k) % shape.fileCount) } : {}),
    });
  }
  for (let g = shape.grantCount - OAUTH_BURST_SIZE; g < shape.grantCount; g++) {
    const grant = grantAt(shape, apps, g);
    push("oauth-burst", g, Date.parse(grant.grantedAt), s.oauthBurst, {
      type: "oauth_grant",
      resourceId: grant.id,
      target: grant.clientId,
    });
  }
  return events;
}

function dailyEvents(
  shape: TDemoShape,
  apps: readonly TDemoApp[],
  user: number,
  dayStart: number,
): TTimedEvent[] {
  // Days are numbered on the calendar (days since 1970), so a day's events are the same whatever
  // the revision reading them.
  const day = Math.floor(dayStart / DAY_MS);
  const rng = rngFor(shape.words, STREAMS.activity, Math.imul(user, 0x9e3779b1) ^ day);
  const r = rng.next();
  const count = Math.floor(r * r * r * 9);
  const events: TTimedEvent[] = [];
  const actorEmail = userEmailAt(shape, user);
  for (let k = 0; k < count; k++) {
    const ms = dayStart + rng.int(DAY_MS);
    const t = rng.next();
    const event: TTimedEvent = {
      id: eventId(shape, `${day}-${user}-${k}`, day, user, k),
      at: isoAt(ms),
      ms,
      actorEmail,
      type: "file_access",
    };
    if (t < 0.15) event.type = "login";
    else if (t < 0.27) event.type = "download";
    else if (t < 0.3) {
      event.type = "share_external";
      // An anonymous link (Google "anyone with the link", SharePoint AnonymousLinkCreated) now and then.
      event.target = rng.next() < 0.2 ? "anyone" : externalTargetText(shape, rng);
    } else if (t < 0.305) {
      event.type = "oauth_grant";
      // The consented app's id: Google's client id, the Entra application id of "Consent to application.".
      event.target = rng.pick(apps).clientId;
    } else if (t < 0.33) {
      // Files binned day to day (Drive `trash`/`delete`, SharePoint FileRecycled/FileDeleted).
      event.type = "file_delete";
    }
    if (event.type !== "login" && event.type !== "oauth_grant" && shape.fileCount > 0) {
      event.resourceId = fileIdAt(shape, rng.int(shape.fileCount));
    }
    events.push(event);
  }
  return events;
}

/**
 * Day by day, oldest first, each day sorted by time: at most one day is ever held in memory. The
 * window is the ACTIVITY_DAYS tenant days before the tenant's clock (epoch + revision days): each
 * revision adds a day of activity, and a day reads the same at every revision.
 */
export async function* activityEvents(
  shape: TDemoShape,
  apps: readonly TDemoApp[],
  since: Date,
): AsyncGenerator<TActivityEvent> {
  const windowStart = shape.nowMs - ACTIVITY_DAYS * DAY_MS;
  const sinceMs = Math.max(since.getTime(), windowStart);
  const active = new Uint8Array(shape.userCount);
  for (let j = 0; j < shape.userCount; j++) active[j] = isActiveUser(userAt(shape, j), shape) ? 1 : 0;
  // The reactivated account worked like everyone else until DORMANT_SINCE_DAYS before the epoch,
  // and its only later activity is its scripted return.
  const reactivated = shape.scripted.reactivated;
  const dormantFrom = shape.epochMs - DORMANT_SINCE_DAYS * DAY_MS;
  const scripted = scriptedEvents(shape, apps);

  for (let dayStart = windowStart; dayStart < shape.nowMs; dayStart += DAY_MS) {
    const dayEnd = dayStart + DAY_MS;
    if (dayEnd <= sinceMs) continue;
    const events: TTimedEvent[] = scripted.filter((e) => e.ms >= dayStart && e.ms < dayEnd);
    for (let j = 0; j < shape.userCount; j++) {
      const working = j === reactivated ? dayStart < dormantFrom : active[j] === 1;
      if (working) events.push(...dailyEvents(shape, apps, j, dayStart));
    }
    events.sort((a, b) => a.ms - b.ms || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    for (const { ms, ...event } of events) {
      if (ms >= sinceMs && ms <= shape.nowMs) yield event;
    }
  }
}
