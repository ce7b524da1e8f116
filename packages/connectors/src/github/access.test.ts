import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { GITHUB_OPERATIONS } from "../../../fakes/src/fake-github-schema";
import { checkGithubAccess, GITHUB_ACCESS } from "./access";
import { GITHUB_WRITE_REQUIREMENTS } from "./write";

// Reads (GITHUB_ACCESS, checked on connect) and remediation's writes (GITHUB_WRITE_REQUIREMENTS).
const EVERY_REQUIREMENT = [...GITHUB_ACCESS, ...GITHUB_WRITE_REQUIREMENTS];

// The connector's permission list, the extract's per-operation permissions (GitHub's table) and
// docs/sources/github.md say the same thing.

const operation = (key: string) => GITHUB_OPERATIONS.find((op) => `${op.method} ${op.path}` === key);

describe("GITHUB_ACCESS", () => {
  it("names every installation operation of the extract once, with the permission GitHub's table gives it", () => {
    const listed = EVERY_REQUIREMENT.flatMap((r) => r.operations);
    const installationOps = GITHUB_OPERATIONS.filter((op) => op.auth === "installation").map(
      (op) => `${op.method} ${op.path}`,
    );
    expect([...listed].sort()).toEqual([...installationOps].sort());
    for (const requirement of EVERY_REQUIREMENT)
      for (const key of requirement.operations) {
        const permissions = operation(key)?.permissions;
        const accepted = [
          ...(permissions?.anyOf ?? []),
          ...(permissions?.fields ? [permissions.fields] : []),
        ];
        const ours = [requirement.needs, ...(requirement.orNeeds ? [requirement.orNeeds] : [])];
        // GET /orgs/{org} needs no permission to answer, but shows the settings only with `fields`.
        expect(accepted, key).toEqual(expect.arrayContaining(ours));
      }
  });

  it("grants a requirement on a higher level or on its alternative", () => {
    const checks = checkGithubAccess({
      metadata: "read",
      members: "write",
      organization_administration: "read",
    });
    expect(checks.map((c) => [c.feature, c.granted])).toEqual([
      ["Repositories and their outside collaborators", true],
      ["Members, outside collaborators and teams", true],
      ["Deploy keys", false],
      ["Organization settings, app installations and Actions permissions", true],
      ["Copilot seats", true],
    ]);
    expect(checks[2]?.detail).toBe("The installation's token carries no administration: read");
  });

  it("is the table of docs/sources/github.md", () => {
    const doc = readFileSync(new URL("../../../../docs/sources/github.md", import.meta.url), "utf8");
    for (const requirement of EVERY_REQUIREMENT) {
      expect(doc, requirement.permission).toContain(`\`${requirement.permission}\``);
      for (const op of requirement.operations) expect(doc, op).toContain(`\`${op}\``);
    }
  });
});
