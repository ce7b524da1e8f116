import { randomBytes } from "node:crypto";
import { linkSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";

/**
 * The embedded database (PGlite) belongs to one process: a second process opening the same folder
 * works on its own copy in memory, and whichever closes last overwrites the other's writes. So
 * every process that opens it (gateway, CLI) first takes this lock: a file beside the database
 * naming its holder, created atomically (link(2) fails when it exists) and removed on close or
 * exit. A lock whose process is gone (killed, crashed) is stale and taken over.
 */
export type TDataDirHolder = {
  pid: number;
  hostname: string;
  startedAt: string;
  command: string;
  token: string;
};

export class DataDirInUseError extends Error {
  readonly code = "data_dir_in_use";
  constructor(
    readonly dataDir: string,
    readonly lockFile: string,
    readonly holder: TDataDirHolder,
  ) {
    super(
      `The embedded database in ${dataDir} is held by process ${holder.pid} (${holder.command || "unknown command"}, ` +
        `started ${holder.startedAt} on ${holder.hostname}). Only one process may open it: stop that process ` +
        `(or use DATABASE_URL) and try again. If no such process runs, delete ${lockFile}.`,
    );
    this.name = "DataDirInUseError";
  }
}

export type TDataDirLock = { file: string; holder: TDataDirHolder; release: () => void };

/** Folders this process holds, so a second open in the same process is refused as well. */
const held = new Set<string>();

export const lockFileOf = (dataDir: string) => join(dirname(dataDir), `${basename(dataDir)}.lock`);

function readHolder(file: string): TDataDirHolder | null {
  try {
    const h = JSON.parse(readFileSync(file, "utf8")) as Partial<TDataDirHolder>;
    if (typeof h.pid !== "number" || !Number.isInteger(h.pid) || h.pid <= 0) return null;
    return {
      pid: h.pid,
      hostname: String(h.hostname ?? ""),
      startedAt: String(h.startedAt ?? ""),
      command: String(h.command ?? ""),
      token: String(h.token ?? ""),
    };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") throw err;
    return null; // unreadable content: nobody can be identified as its holder
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM"; // exists, owned by someone else
  }
}

/**
 * A holder that no longer runs. Our own pid in a file this process did not write is a previous
 * run's (a container restarted: pid 1 again).
 */
function isStale(h: TDataDirHolder | null, file: string): boolean {
  if (!h) return true;
  if (h.pid === process.pid) return !held.has(file);
  return !isAlive(h.pid);
}

export function acquireDataDirLock(dataDir: string): TDataDirLock {
  const file = lockFileOf(dataDir);
  mkdirSync(dirname(file), { recursive: true });
  const holder: TDataDirHolder = {
    pid: process.pid,
    hostname: hostname(),
    startedAt: new Date(Date.now() - process.uptime() * 1000).toISOString(),
    command: process.argv
      .slice(1)
      .map((a) => basename(a))
      .join(" ")
      .slice(0, 200),
    token: randomBytes(8).toString("hex"),
  };
  // Written whole to a file of our own, then linked into place: nobody reads a half-written lock.
  const tmp = `${file}.${process.pid}.${holder.token}`;
  writeFileSync(tmp, JSON.stringify(holder), { mode: 0o600 });
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(tmp, file);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST" || attempt >= 10) throw err;
        let current: TDataDirHolder | null;
        try {
          current = readHolder(file);
        } catch {
          continue; // removed meanwhile: try again
        }
        if (!isStale(current, file) || attempt >= 2) {
          throw new DataDirInUseError(
            dataDir,
            file,
            current ?? { pid: 0, hostname: "", startedAt: "", command: "", token: "" },
          );
        }
        // Moved aside rather than deleted: if another process took the lock over meanwhile, what
        // was moved is its live lock, which goes back (link fails only if a third took it).
        const aside = `${tmp}.stale`;
        try {
          renameSync(file, aside);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === "ENOENT") continue;
          throw e;
        }
        let moved: TDataDirHolder | null = null;
        try {
          moved = readHolder(aside);
        } catch {
          // vanished: nothing to put back
        }
        if (moved && moved.token !== current?.token) {
          try {
            linkSync(aside, file);
          } catch {
            // a third process holds it now; the next attempt reads that one
          }
        }
        try {
          unlinkSync(aside);
        } catch {
          // already gone
        }
      }
    }
  } finally {
    try {
      unlinkSync(tmp);
    } catch {
      // already gone
    }
  }
  held.add(file);

  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    held.delete(file);
    process.off("exit", release);
    try {
      // Only our own lock: never one another process took over meanwhile.
      if (readHolder(file)?.token === holder.token) unlinkSync(file);
    } catch {
      // already gone
    }
  };
  // process.exit() (a forced shutdown) skips close(): the lock still goes.
  process.on("exit", release);
  return { file, holder, release };
}
