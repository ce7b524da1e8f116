import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { GOOGLE_ACCESS, googleScopes } from "./access";

const DOC = new URL("../../../../docs/sources/google-workspace.md", import.meta.url);

describe("GOOGLE_ACCESS", () => {
  it("is documented: the source page names every scope, and its delegation line lists them all", () => {
    const doc = readFileSync(DOC, "utf8");
    for (const { permission, feature } of GOOGLE_ACCESS) {
      expect(doc, `${feature}: add ${permission} to docs/sources/google-workspace.md`).toContain(
        `\`${permission}\``,
      );
    }
    const delegation = doc
      .split("\n")
      .find((line) => line.trim().startsWith("https://www.googleapis.com/auth/"));
    expect(delegation?.trim().split(",").sort()).toEqual(googleScopes().sort());
  });

  it("says for each requirement what is lost without it", () => {
    for (const requirement of GOOGLE_ACCESS) expect(requirement.impact.length).toBeGreaterThan(20);
  });
});
