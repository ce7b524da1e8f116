import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { evaluateAccess, MICROSOFT_ACCESS, MICROSOFT_GRAPH_ACCESS, tokenRoles } from "./access";

const DOC = fileURLToPath(new URL("../../../../docs/sources/microsoft-365.md", import.meta.url));

describe("MICROSOFT_ACCESS", () => {
  it("is documented: docs/sources/microsoft-365.md names every permission and licence", () => {
    const doc = readFileSync(DOC, "utf8");
    const undocumented = MICROSOFT_ACCESS.filter((r) => !doc.includes(`\`${r.permission}\``)).map(
      (r) => r.permission,
    );
    expect(undocumented).toEqual([]);
    for (const requirement of MICROSOFT_ACCESS.filter((r) => r.licence)) {
      expect(doc).toContain(requirement.licence);
    }
  });

  it("reads roles from a JWT payload and marks each requirement", () => {
    const payload = Buffer.from(JSON.stringify({ roles: ["User.Read.All", "Directory.Read.All"] })).toString(
      "base64url",
    );
    const roles = new Set(tokenRoles(`e30.${payload}.sig`));
    expect(tokenRoles("not-a-jwt")).toEqual([]);
    const checks = evaluateAccess(MICROSOFT_GRAPH_ACCESS, () => roles, { premium: true });
    expect(checks.filter((c) => c.granted).map((c) => c.permission)).toEqual([
      "User.Read.All",
      "Application.Read.All",
      "Directory.Read.All",
      "Organization.Read.All",
      "Organization.Read.All",
      // Directory.Read.All serves groups and their transitive members too.
      "GroupMember.Read.All",
    ]);
  });
});
