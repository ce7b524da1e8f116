import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ok } from "./cli-testing";

// `pnpm cli` in embedded mode: its own PGlite in DATA_DIR, migrated by its first command and kept
// between runs. (Refused while a server holds the directory: embedded-held.int.test.ts.)

describe("pnpm cli in embedded mode", { timeout: 120_000 }, () => {
  it("migrates and keeps its data in DATA_DIR between runs", async () => {
    const dir = mkdtempSync(join(tmpdir(), "posture-cli-"));
    try {
      const org = await ok(["org:create", "--name", "Embedded", "--plan", "starter"], { DATA_DIR: dir });
      const changed = await ok(["org:set-plan", "--org", String(org.id), "--plan", "free"], {
        DATA_DIR: dir,
      });
      expect(changed).toMatchObject({ id: org.id, plan: "free", inGrace: true });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
