import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { missingPrerequisites } from "./prerequisites.mjs";

describe("the integration tests' prerequisites", () => {
  it("name the PDF tools missing from PATH, with how to install them", async () => {
    const bin = mkdtempSync(join(tmpdir(), "path-"));
    symlinkSync(process.execPath, join(bin, "node"));
    const missing = await missingPrerequisites({ ...process.env, PATH: bin });
    expect(missing.filter((m) => /^(qpdf|pdftotext|curl) on PATH/.test(m))).toHaveLength(3);
    expect(missing.join("\n")).toContain("apt-get install poppler-utils qpdf");
  });

  it("name a server that does not answer", async () => {
    const missing = await missingPrerequisites({
      ...process.env,
      TEST_DATABASE_URL: "postgres://postgres@127.0.0.1:1/postgres",
      TEST_REDIS_URL: "redis://127.0.0.1:2",
    });
    expect(missing).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^PostgreSQL at 127\.0\.0\.1:1 /),
        expect.stringMatching(/^Redis at 127\.0\.0\.1:2 /),
      ]),
    );
  });

  it("stop `pnpm test` before vitest, with nothing but what is missing (issue 33)", () => {
    // vitest's own global set-up used to fail below a red "No test files found": the preflight
    // runs first, and vitest only when it passes.
    const root = new URL("../../", import.meta.url);
    const pkg = JSON.parse(readFileSync(new URL("package.json", root), "utf8"));
    expect(pkg.scripts.test).toBe("node tooling/test/preflight.mjs && vitest run");
    const run = spawnSync(process.execPath, ["tooling/test/preflight.mjs"], {
      cwd: root,
      env: { ...process.env, TEST_DATABASE_URL: "postgres://postgres@127.0.0.1:1/postgres" },
      encoding: "utf8",
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/^The integration tests need:\n {2}- PostgreSQL at 127\.0\.0\.1:1 /);
    expect(run.stderr).toContain("pnpm vitest run --project unit");
    expect(run.stderr).not.toContain("No test files");
  });
});
