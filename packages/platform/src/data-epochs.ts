import { AsyncLocalStorage } from "node:async_hooks";
import { randomBytes } from "node:crypto";
import { eq, or } from "drizzle-orm";
import { organizations, type Db } from "@posture/db";

/**
 * Data epochs (issue 34): what lets a gateway serve a read from its memory and be exact. Each
 * organization has an epoch that every write bumps, and a set of writes in progress; a read may
 * be answered from the read cache only when no write of its organization is in progress and the
 * epoch is the one its entry was stored at.
 *
 * A write marks its organizations before it starts (`begin`: the epoch moves, so every entry
 * stored before is stale, and the write is listed as in progress, so no read caches while it
 * runs) and again once it has committed (`end`: the epoch moves again, so nothing a read stored
 * meanwhile can be served, and the write is no longer listed). A read learns both in the rate
 * limiter's round trip (rate-limit.ts) and stores what it read under the epoch it saw before it
 * ran. So no read can be answered with data older than the last committed change: an entry is
 * only ever served under the epoch it was read at, and every commit lies between two bumps.
 *
 * A write in progress is listed with an expiry, renewed while it runs: a process that dies
 * mid-write leaves its mark for at most `WRITE_MARK_TTL_MS`, never for ever. Epochs start at the
 * clock's millisecond × 1,000 when Redis has none, so a Redis restarted empty never hands an
 * old value out again.
 */

/** The scope of a write no organization can be named for (a sweep over all of them). */
export const ALL_ORGANIZATIONS = "*";

/** How long a write's mark lasts unless renewed (renewed every third of it while the write runs). */
export const WRITE_MARK_TTL_MS = 30_000;

export type TDataWriteMark = {
  /** Call once the write has committed (or failed): bumps the epochs again and lifts the mark. */
  end: () => Promise<void>;
};

/** What every writer calls around its writes: the API's mutations, jobs, startup work. */
export type TDataWrites = {
  /**
   * Marks these organizations (and the ones whose reads include theirs: a client's partner, a
   * partner's clients) as being written. `ALL_ORGANIZATIONS` marks every organization.
   */
  begin: (orgIds: readonly string[]) => Promise<TDataWriteMark>;
  /**
   * A write whose organizations are known only once it has run (a sign-in, a tracker's webhook):
   * every organization is listed as being written while it runs — nothing is cached anywhere
   * meanwhile, nothing kept is invalidated — and `end` marks the ones it wrote, as a write of
   * them would be marked once it ends.
   */
  beginUnnamed: () => Promise<{ end: (written: readonly string[]) => Promise<void> }>;
};

/** Runs `fn` as a write of these organizations (no-op without a `TDataWrites`). */
export async function asDataWrite<T>(
  writes: TDataWrites | undefined,
  orgIds: readonly string[],
  fn: () => Promise<T>,
): Promise<T> {
  if (!writes) return fn();
  const mark = await writes.begin(orgIds);
  try {
    return await fn();
  } finally {
    await mark.end();
  }
}

/** The organizations a read (a GET) or an unnamed write turned out to write, while it runs. */
const readWrites = new AsyncLocalStorage<Set<string>>();

/**
 * Runs a write whose organizations are not known before it runs (a public mutation, a tracker's
 * webhook, the sign-in failures' drain, a CLI command): listed as a write of every organization
 * while it runs, then marked as a write of the organizations of the audit rows it wrote — every
 * write writes its audit row in its transaction, so those are the organizations it changed.
 */
export async function asUnnamedWrite<T>(writes: TDataWrites | undefined, fn: () => Promise<T>): Promise<T> {
  if (!writes) return fn();
  const mark = await writes.beginUnnamed();
  const written = new Set<string>();
  try {
    return await readWrites.run(written, fn);
  } finally {
    await mark.end([...written]);
  }
}

/** Called by every audit row's write: inside a read, the read is known to have written there. */
export function noteReadWrite(orgId: string): void {
  readWrites.getStore()?.add(orgId);
}

/**
 * Runs a read (a query procedure). A read that writes names what it writes and marks it itself
 * (a partner's visit on the client's trail, client-reads.ts); should one write an audit row
 * without doing so, its organizations are marked once it has finished, so no cache serves what
 * it wrote for longer than the read itself took.
 */
export async function asRead<T>(writes: TDataWrites | undefined, fn: () => Promise<T>): Promise<T> {
  if (!writes) return fn();
  const written = new Set<string>();
  try {
    return await readWrites.run(written, fn);
  } finally {
    if (written.size > 0) await (await writes.begin([...written])).end();
  }
}

/**
 * The organizations whose reads include this one's data: itself, the partner managing it, and
 * (a partner) the clients it manages. A portfolio read of the partner aggregates its clients, and
 * a partner's action writes into them.
 */
export async function relatedOrganizations(db: Db, orgId: string): Promise<string[]> {
  if (orgId === ALL_ORGANIZATIONS) return [ALL_ORGANIZATIONS];
  const rows = await db
    .select({ id: organizations.id, managedBy: organizations.managedByOrgId })
    .from(organizations)
    .where(or(eq(organizations.id, orgId), eq(organizations.managedByOrgId, orgId)));
  const ids = new Set<string>([orgId]);
  for (const r of rows) {
    ids.add(r.id);
    if (r.managedBy) ids.add(r.managedBy);
  }
  return [...ids];
}

/** The epoch a read saw: the organization's and every organization's, or null while written. */
export type TDataEpoch = string;

/** Where the epochs live: Redis shared by every process, or this process's memory (embedded). */
export type TDataEpochStore = {
  /** Bumps each organization's epoch and lists the write `token` as in progress until `expiresAt`. */
  begin: (orgIds: readonly string[], token: string, expiresAt: number) => Promise<void>;
  renew: (orgIds: readonly string[], token: string, expiresAt: number) => Promise<void>;
  end: (orgIds: readonly string[], token: string) => Promise<void>;
  /** Takes the write `token` off without moving the epochs (an unnamed write's listing). */
  unlist: (orgIds: readonly string[], token: string) => Promise<void>;
};

/** The key names, shared by the store and the rate limiter's read. */
export const dataEpochKeys = (prefix: string, orgId: string) => ({
  epoch: `${prefix}:data:${orgId}`,
  writing: `${prefix}:data-writing:${orgId}`,
});

/** Epochs start here when none is known: above any value handed out before (see above). */
export const seedEpoch = (now: number) => now * 1000;

/** One process's epochs (embedded mode, no Redis): exact for that process, which is all there is. */
export class LocalDataEpochs implements TDataEpochStore {
  private readonly epochs = new Map<string, number>();
  private readonly writing = new Map<string, Map<string, number>>();

  async begin(orgIds: readonly string[], token: string, expiresAt: number): Promise<void> {
    for (const id of orgIds) {
      this.bump(id);
      this.mark(id, token, expiresAt);
    }
  }

  async renew(orgIds: readonly string[], token: string, expiresAt: number): Promise<void> {
    for (const id of orgIds) this.mark(id, token, expiresAt);
  }

  async end(orgIds: readonly string[], token: string): Promise<void> {
    for (const id of orgIds) this.bump(id);
    await this.unlist(orgIds, token);
  }

  async unlist(orgIds: readonly string[], token: string): Promise<void> {
    for (const id of orgIds) {
      const marks = this.writing.get(id);
      marks?.delete(token);
      if (marks?.size === 0) this.writing.delete(id);
    }
  }

  /** The epoch a read of this organization may cache under, or null while it is being written. */
  read(orgId: string, now: number): TDataEpoch | null {
    if (this.busy(orgId, now) || this.busy(ALL_ORGANIZATIONS, now)) return null;
    return `${this.epochOf(orgId, now)}:${this.epochOf(ALL_ORGANIZATIONS, now)}`;
  }

  private epochOf(id: string, now: number): number {
    let e = this.epochs.get(id);
    if (e === undefined) {
      e = seedEpoch(now);
      this.epochs.set(id, e);
    }
    return e;
  }

  private bump(id: string): void {
    this.epochs.set(id, (this.epochs.get(id) ?? seedEpoch(Date.now())) + 1);
  }

  private mark(id: string, token: string, expiresAt: number): void {
    let marks = this.writing.get(id);
    if (!marks) this.writing.set(id, (marks = new Map()));
    marks.set(token, expiresAt);
  }

  private busy(id: string, now: number): boolean {
    const marks = this.writing.get(id);
    if (!marks) return false;
    for (const [token, until] of marks) if (until <= now) marks.delete(token);
    if (marks.size === 0) this.writing.delete(id);
    return marks.size > 0;
  }
}

export type TDataWritesOptions = {
  db: Db;
  store: TDataEpochStore;
  /** A write's marks could not be recorded (Redis away): the write goes on; the cache is bounded by its TTL. */
  onError?: (err: Error) => void;
};

/**
 * The writers' side: `begin` names the related organizations (before the write), marks them, and
 * renews the mark while the write runs; `end` marks the related organizations after the write
 * too (a write that links a client to a partner makes them related) and lifts the mark.
 */
export function dataWrites(o: TDataWritesOptions): TDataWrites {
  const report = (err: unknown) => o.onError?.(err instanceof Error ? err : new Error(String(err)));
  const relatedTo = async (orgIds: readonly string[]) => {
    if (orgIds.includes(ALL_ORGANIZATIONS)) return [ALL_ORGANIZATIONS];
    const all = await Promise.all(orgIds.map((id) => relatedOrganizations(o.db, id)));
    return [...new Set(all.flat())];
  };
  /** Lists the write until it ends, renewed every third of its expiry. */
  const listed = (orgIds: readonly string[], token: string) => {
    const renewal = setInterval(() => {
      o.store.renew(orgIds, token, Date.now() + WRITE_MARK_TTL_MS).catch(report);
    }, WRITE_MARK_TTL_MS / 3);
    renewal.unref();
    return () => clearInterval(renewal);
  };
  return {
    async beginUnnamed() {
      const token = randomBytes(9).toString("base64url");
      try {
        await o.store.renew([ALL_ORGANIZATIONS], token, Date.now() + WRITE_MARK_TTL_MS);
      } catch (err) {
        report(err);
      }
      const stop = listed([ALL_ORGANIZATIONS], token);
      let ended = false;
      return {
        async end(written) {
          if (ended) return;
          ended = true;
          stop();
          try {
            const related = written.length > 0 ? await relatedTo(written) : [];
            // The written organizations' epochs move before the listing goes: no read in between.
            if (related.length > 0) await o.store.end(related, token);
            await o.store.unlist([ALL_ORGANIZATIONS], token);
          } catch (err) {
            report(err);
          }
        },
      };
    },
    async begin(orgIds) {
      const token = randomBytes(9).toString("base64url");
      const related = () => relatedTo(orgIds);
      const before = await related();
      try {
        await o.store.begin(before, token, Date.now() + WRITE_MARK_TTL_MS);
      } catch (err) {
        report(err);
      }
      const stop = listed(before, token);
      let ended = false;
      return {
        async end() {
          if (ended) return;
          ended = true;
          stop();
          const after = await related().catch(() => before);
          try {
            await o.store.end([...new Set([...before, ...after])], token);
          } catch (err) {
            report(err);
          }
        },
      };
    },
  };
}
