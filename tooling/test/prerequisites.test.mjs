import { mkdtempSync, symlinkSync } from "node:fs";
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
});
