import { spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEmbeddedDb, lockFileOf } from "@posture/db";
import { afterAll, describe, expect, it } from "vitest";
import { copyFirstStart, startAgain } from "../../../tooling/test/first-start.mjs";
import { fails, ok } from "./cli-testing";

// `pnpm cli` refused while a server holds DATA_DIR (an embedded database opened in this process,
// then the real gateway), and working once it let go. Both start from a copy of the run's one
// embedded first start (tooling/test/first-start.mjs): a DATA_DIR as `pnpm start` leaves it.

describe("pnpm cli beside a server holding DATA_DIR", { timeout: 180_000 }, () => {
  it("refuses at once, naming the holding process, and writes nothing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "posture-cli-held-"));
    // A DATA_DIR as a first start left it (a copy of the run's one, tooling/test/first-start.mjs:
    // migrated and seeded), opened the server's way: it takes DATA_DIR's lock.
    await copyFirstStart(dir);
    const server = await createEmbeddedDb(join(dir, "pg"));
    try {
      await server.migrate();
      const before = (await server.db.query.organizations.findMany()).map((o) => o.name).sort();
      expect(before).toEqual(["Acme Corp", "Globex", "Northwind MSP"]);
      const started = Date.now();
      const refused = await fails(["org:create", "--name", "Lost", "--plan", "team"], { DATA_DIR: dir });
      expect(refused).toMatchObject({
        code: 1,
        error: { error: "data_dir_in_use", message: expect.stringContaining(`process ${process.pid}`) },
      });
      expect(Date.now() - started).toBeLessThan(30_000);
      // The server's database holds no such organization, and the server's lock is still its own.
      const orgs = await server.db.query.organizations.findMany();
      expect(orgs.map((o) => o.name).sort()).toEqual(before);
      expect(existsSync(lockFileOf(join(dir, "pg")))).toBe(true);
    } finally {
      await server.close();
    }
    try {
      // Released on close; a lock left by a process that died is stale and taken over.
      expect(existsSync(lockFileOf(join(dir, "pg")))).toBe(false);
      const dead = spawnSync("true").pid;
      writeFileSync(
        lockFileOf(join(dir, "pg")),
        JSON.stringify({ pid: dead, hostname: "h", startedAt: "", command: "gateway", token: "x" }),
      );
      const org = await ok(["org:create", "--name", "After", "--plan", "team"], { DATA_DIR: dir });
      expect(org).toMatchObject({ name: "After" });
      expect(existsSync(lockFileOf(join(dir, "pg")))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("pnpm cli beside the real gateway in embedded mode", { timeout: 240_000 }, () => {
  let gateway: ChildProcess | undefined;
  let startedDir = "";
  afterAll(() => {
    gateway?.kill("SIGKILL");
    if (startedDir) rmSync(startedDir, { recursive: true, force: true });
  });

  it("is refused while `pnpm start` runs on DATA_DIR, and works once the gateway has stopped", async () => {
    const dir = mkdtempSync(join(tmpdir(), "posture-cli-gateway-"));
    try {
      // `pnpm start` on a DATA_DIR the run's one first start migrated and seeded (a copy of it,
      // tooling/test/first-start.mjs): the gateway holds it once it says it is listening.
      const started = await startAgain({
        args: ["--enable-source-maps", "dist/main.js"],
        dataDir: dir,
        env: { HOST: "127.0.0.1" },
      });
      startedDir = started.dir;
      const proc = started.proc;
      gateway = proc;

      const refused = await fails(["org:create", "--name", "Lost", "--plan", "team"], { DATA_DIR: dir });
      expect(refused).toMatchObject({
        code: 1,
        error: { error: "data_dir_in_use", message: expect.stringContaining(`process ${proc.pid}`) },
      });

      const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)));
      proc.kill("SIGTERM");
      expect(await exited).toBe(0);
      gateway = undefined;
      expect(existsSync(lockFileOf(join(dir, "pg")))).toBe(false);

      const kept = await ok(["org:create", "--name", "Kept", "--plan", "team"], { DATA_DIR: dir });
      const verified = await ok(["audit:verify"], { DATA_DIR: dir });
      const names = (verified.organizations as { name: string; ok: boolean }[]).map((o) => o.name);
      expect(names).toContain("Kept");
      expect(names).toContain("Acme Corp"); // the gateway's demo seed, its audit rows keyed alike
      expect(names).not.toContain("Lost");
      expect(verified.ok).toBe(true);
      expect(kept).toMatchObject({ name: "Kept" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
