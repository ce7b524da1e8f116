import {
  ChangeCursorExpiredError,
  type TAppGrant,
  type TChangeCursor,
  type TFileChange,
  type TSharedDrive,
  type TSourceAdapter,
  type TSourceFile,
  type TSourceUser,
  type TTenantSetting,
} from "@posture/connectors";

const SOURCE = "scripted";

/**
 * A tenant held in memory that a test changes between scans, with a file change feed like a real
 * source's: every change to a file is logged with the file as it was then (so a file changed twice
 * is reported twice, the last report winning), a deleted user's personal drive and a deleted shared
 * drive are reported gone, and a cursor older than `expireCursors()` made it throws
 * ChangeCursorExpiredError while the changes are iterated (as Drive's 410 and Graph's
 * `resyncRequired` do).
 */
export type TScriptedTenant = {
  adapter: TSourceAdapter;
  putUser: (user: TSourceUser) => void;
  /** Deletes the user and their personal drive's files. */
  removeUser: (email: string) => void;
  putFile: (file: TSourceFile) => void;
  removeFile: (id: string) => void;
  putDrive: (drive: TSharedDrive) => void;
  /** Deletes the shared drive and its files. */
  removeDrive: (id: string) => void;
  putGrant: (grant: TAppGrant) => void;
  removeGrant: (id: string) => void;
  setSettings: (settings: TTenantSetting[]) => void;
  /** Every cursor handed out so far is expired from now on. */
  expireCursors: () => void;
  /** The next read of the feed throws after reporting this many changes (a scanner dying mid-read). */
  failFeedAfter: (changes: number) => void;
  /** Every `file` change ever reported by a read (what the scans were fed). */
  reads: () => number;
  files: () => TSourceFile[];
};

export type TScriptedSeed = {
  domain: string;
  users?: TSourceUser[];
  files?: TSourceFile[];
  drives?: TSharedDrive[];
  grants?: TAppGrant[];
  settings?: TTenantSetting[];
};

const copy = <T>(value: T): T => structuredClone(value);

export function createScriptedTenant(seed: TScriptedSeed): TScriptedTenant {
  const users = new Map((seed.users ?? []).map((u) => [u.email, copy(u)]));
  const files = new Map((seed.files ?? []).map((f) => [f.id, copy(f)]));
  const drives = new Map((seed.drives ?? []).map((d) => [d.id, copy(d)]));
  const grants = new Map((seed.grants ?? []).map((g) => [g.id, copy(g)]));
  let settings = copy(seed.settings ?? []);
  const log: TFileChange[] = [];
  let epoch = 0;
  let failAfter: number | null = null;
  let reported = 0;

  const cursorAt = (position: number): TChangeCursor => ({
    source: SOURCE,
    feeds: { log: String(position), epoch: String(epoch) },
  });

  async function* changesBetween(from: number, to: number, since: TChangeCursor): AsyncIterable<TFileChange> {
    if (since.source !== SOURCE || !/^\d+$/.test(since.feeds.log ?? ""))
      throw new ChangeCursorExpiredError("not a cursor of this source");
    if (since.feeds.epoch !== String(epoch) || from > log.length)
      throw new ChangeCursorExpiredError("the change log no longer reaches back to this cursor", "log");
    const dieAfter = failAfter;
    failAfter = null;
    let sent = 0;
    for (let i = from; i < to; i++) {
      if (dieAfter !== null && sent === dieAfter) throw new Error(`scripted feed died after ${sent} changes`);
      const change = log[i];
      if (!change) continue;
      if (change.kind === "file") reported++;
      sent++;
      yield copy(change);
    }
  }

  async function* each<T>(items: Iterable<T>): AsyncIterable<T> {
    for (const item of items) yield copy(item);
  }

  /**
   * Files going with their owner or drive. One the log reported as a file is reported removed too:
   * `ownerGone` and `driveGone` spare the files the same read reports.
   */
  const dropFiles = (gone: (f: TSourceFile) => boolean) => {
    for (const f of [...files.values()]) {
      if (!gone(f)) continue;
      files.delete(f.id);
      if (log.some((c) => c.kind === "file" && c.file.id === f.id))
        log.push({ kind: "removed", fileId: f.id });
    }
  };

  const adapter: TSourceAdapter = {
    workspace: async () => ({ domain: seed.domain, internalDomains: [seed.domain] }),
    users: () => each(users.values()),
    files: () => each(files.values()),
    sharedDrives: () => each(drives.values()),
    appGrants: () => each(grants.values()),
    activity: () => each([]),
    tenantSettings: async () => copy(settings),
    checkAccess: async () => [],
    coverageGaps: () => [],
    changeFeed: {
      start: async () => cursorAt(log.length),
      read: (since) => {
        const from = Number(since.feeds.log);
        const to = log.length;
        return { changes: changesBetween(from, to, since), cursor: () => cursorAt(to) };
      },
    },
  };

  return {
    adapter,
    putUser: (u) => void users.set(u.email, copy(u)),
    removeUser: (email) => {
      users.delete(email);
      for (const f of [...files.values()])
        if (f.driveId === null && f.ownerEmail === email) files.delete(f.id);
      log.push({ kind: "ownerGone", ownerEmail: email });
    },
    putFile: (f) => {
      files.set(f.id, copy(f));
      log.push({ kind: "file", file: copy(f) });
    },
    removeFile: (id) => {
      files.delete(id);
      log.push({ kind: "removed", fileId: id });
    },
    putDrive: (d) => void drives.set(d.id, copy(d)),
    removeDrive: (id) => {
      drives.delete(id);
      dropFiles((f) => f.driveId === id);
      log.push({ kind: "driveGone", driveId: id });
    },
    putGrant: (g) => void grants.set(g.id, copy(g)),
    removeGrant: (id) => void grants.delete(id),
    setSettings: (s) => (settings = copy(s)),
    expireCursors: () => void epoch++,
    failFeedAfter: (n) => (failAfter = n),
    reads: () => reported,
    files: () => [...files.values()].map(copy),
  };
}
