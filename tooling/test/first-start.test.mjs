import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { FIRST_START_FILES } from "./first-start.mjs";

const root = new URL("../../", import.meta.url).pathname;

describe("the shared first start", () => {
  it("is done in the set-up for exactly the test files that use it", () => {
    // A file that uses it but is not listed would start it lazily, inside its own time.
    const tracked = execFileSync("git", ["ls-files", "-z", "--", "*.int.test.ts"], {
      cwd: root,
      encoding: "utf8",
    })
      .split("\0")
      .filter(Boolean);
    const users = tracked.filter((path) =>
      /from "(\.\.\/)+tooling\/test\/first-start\.mjs"/.test(readFileSync(`${root}${path}`, "utf8")),
    );
    expect(users.sort()).toEqual([...FIRST_START_FILES].sort());
  });
});
