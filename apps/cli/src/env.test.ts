import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { workspaceRoot } from "@posture/db";
import { readCliEnv } from "./env";

const root = mkdtempSync(join(tmpdir(), "cli-env-"));
writeFileSync(join(root, "pnpm-workspace.yaml"), "packages: []\n");
const sub = join(root, "apps", "cli");
mkdirSync(sub, { recursive: true });
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("readCliEnv", () => {
  it("finds the workspace root above the folder pnpm ran in", () => {
    expect(workspaceRoot(sub)).toBe(root);
  });

  it("takes the default and relative data directories from the workspace root", () => {
    expect(readCliEnv({ INIT_CWD: sub }).dataDir).toBe(join(root, ".data"));
    expect(readCliEnv({ INIT_CWD: sub, DATA_DIR: "var/db" }).dataDir).toBe(join(root, "var", "db"));
    expect(readCliEnv({ INIT_CWD: sub, DATA_DIR: "/srv/posture" }).dataDir).toBe("/srv/posture");
  });

  it("prefers DATABASE_URL and ignores an empty one", () => {
    expect(readCliEnv({ INIT_CWD: sub, DATABASE_URL: "postgres://h/db" }).databaseUrl).toBe(
      "postgres://h/db",
    );
    expect(readCliEnv({ INIT_CWD: sub, DATABASE_URL: "" }).databaseUrl).toBeUndefined();
  });
});
