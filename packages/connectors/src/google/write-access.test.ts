import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { GOOGLE_ACCESS, GOOGLE_WRITE_ACCESS, GOOGLE_WRITE_SCOPE } from "./access";

const DOC = new URL("../../../../docs/operations.md", import.meta.url);

describe("GOOGLE_WRITE_ACCESS", () => {
  it("is documented in operations.md's Google remediation section, scope by scope", () => {
    const doc = readFileSync(DOC, "utf8");
    const section = doc.slice(doc.indexOf("### Remediation: Google Workspace scopes"));
    expect(section.length).toBeGreaterThan(100);
    for (const { permission } of GOOGLE_WRITE_ACCESS) expect(section).toContain(`\`${permission}\``);
  });

  it("stays opt-in: the scan never asks for Drive's full scope", () => {
    const read = new Set(GOOGLE_ACCESS.map((r) => r.permission));
    expect(read.has(GOOGLE_WRITE_SCOPE.drive)).toBe(false);
    for (const requirement of GOOGLE_WRITE_ACCESS) {
      expect(requirement.feature).toMatch(/^Remediation: /);
      expect(requirement.impact.length).toBeGreaterThan(40);
    }
  });
});
