import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { acquireDataDirLock, DataDirInUseError, lockFileOf } from "./data-dir-lock";

const root = mkdtempSync(join(tmpdir(), "data-dir-lock-"));
let n = 0;
const freshDir = () => join(root, `d${++n}`, "pg");
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill("SIGKILL");
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const holderFile = (pid: number) =>
  JSON.stringify({
    pid,
    hostname: "h",
    startedAt: "2026-01-01T00:00:00.000Z",
    command: "gateway",
    token: "t",
  });

describe("the embedded database folder's lock", () => {
  it("is written beside the folder naming this process, refused to a second opener, removed on release", () => {
    const dir = freshDir();
    const lock = acquireDataDirLock(dir);
    expect(lock.file).toBe(lockFileOf(dir));
    expect(JSON.parse(readFileSync(lock.file, "utf8"))).toMatchObject({ pid: process.pid });

    const second = (() => {
      try {
        acquireDataDirLock(dir);
        return null;
      } catch (err) {
        return err;
      }
    })();
    expect(second).toBeInstanceOf(DataDirInUseError);
    expect((second as DataDirInUseError).holder.pid).toBe(process.pid);
    expect((second as Error).message).toContain(`process ${process.pid}`);

    lock.release();
    expect(existsSync(lock.file)).toBe(false);
    acquireDataDirLock(dir).release();
  });

  it("refuses while the process named in the lock runs", () => {
    const dir = freshDir();
    const sleeper = spawn("sleep", ["30"]);
    children.push(sleeper);
    const pid = sleeper.pid ?? 0;
    acquireDataDirLock(dir).release(); // creates the parent folder
    writeFileSync(lockFileOf(dir), holderFile(pid));
    expect(() => acquireDataDirLock(dir)).toThrow(`held by process ${pid}`);
    expect(JSON.parse(readFileSync(lockFileOf(dir), "utf8"))).toMatchObject({ pid });
  });

  it("takes over a stale lock (its process is gone) and an unreadable one", () => {
    const dir = freshDir();
    const gone = spawnSync("true");
    acquireDataDirLock(dir).release();
    writeFileSync(lockFileOf(dir), holderFile(gone.pid));
    const lock = acquireDataDirLock(dir);
    expect(JSON.parse(readFileSync(lock.file, "utf8"))).toMatchObject({ pid: process.pid });
    lock.release();

    writeFileSync(lockFileOf(dir), "{not json");
    acquireDataDirLock(dir).release();
    // A previous run of a process with our pid (a restarted container's pid 1) is stale too.
    writeFileSync(lockFileOf(dir), holderFile(process.pid));
    acquireDataDirLock(dir).release();
  });

  it("release leaves alone a lock another process has taken over", () => {
    const dir = freshDir();
    const lock = acquireDataDirLock(dir);
    writeFileSync(lock.file, holderFile(424242));
    lock.release();
    expect(existsSync(lock.file)).toBe(true);
  });
});
