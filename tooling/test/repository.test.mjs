import { execFileSync } from "node:child_process";
import { closeSync, openSync, readFileSync, readSync } from "node:fs";
import { describe, expect, it } from "vitest";

const root = new URL("../../", import.meta.url).pathname;

/** The first bytes of a tracked file (enough to recognise a format by its header). */
function head(path) {
  const fd = openSync(`${root}${path}`, "r");
  try {
    const buf = Buffer.alloc(64);
    return buf.subarray(0, readSync(fd, buf, 0, 64, 0)).toString("latin1");
  } finally {
    closeSync(fd);
  }
}

describe("the repository", () => {
  it("tracks no cookie jar (a session token)", () => {
    const tracked = execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8" }).split("\0");
    const jars = tracked.filter((path) => path !== "" && /^# (Netscape )?HTTP Cookie File/.test(head(path)));
    expect(jars).toEqual([]);
  });

  it("reads the router's procedures in the route catalog only", () => {
    // Every transport and route walker takes its routes from routeCatalog (issue 29).
    let found = "";
    try {
      found = execFileSync("git", ["grep", "-l", "-E", "_def\\.procedures", "--", "*.ts", "*.mjs"], {
        cwd: root,
        encoding: "utf8",
      });
    } catch (err) {
      if (err.status !== 1) throw err; // 1: no match
    }
    expect(found.split("\n").filter(Boolean)).toEqual(["packages/platform/src/route-catalog.ts"]);
  });

  it("takes a service's organization in its input object, never positionally", () => {
    // `service(db, {orgId, actor, ...input}, deps?)` (docs/architecture.md, "Services").
    const tracked = execFileSync(
      "git",
      ["ls-files", "-z", "packages/*/src/services/*.ts", "packages/*/src/services/**/*.ts"],
      {
        cwd: root,
        encoding: "utf8",
      },
    )
      .split("\0")
      .filter((path) => path !== "" && !/\.test\.ts$/.test(path));
    const positional = tracked.filter((path) =>
      /export (async )?function \w+(<[^>]*>)?\(\s*\w+: \w*Db\w*,\s*orgId: string/.test(
        readFileSync(`${root}${path}`, "utf8"),
      ),
    );
    expect(positional).toEqual([]);
    expect(tracked.length).toBeGreaterThan(100);
  });
});
