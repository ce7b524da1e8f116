import { describe, expect, it } from "vitest";
import { createGithubDemoAdapter, GITHUB_DEMO_REPOS } from "./demo";
import { githubDriftAt } from "./demo-revisions";

const publicRepos = async (revision: number) => {
  const names: string[] = [];
  for await (const f of createGithubDemoAdapter({ repositoryCount: 40, revision }).files())
    if (f.permissions.some((p) => p.type === "anyone")) names.push(f.name);
  return names.sort();
};
const outside = async (revision: number) => {
  const logins: string[] = [];
  for await (const f of createGithubDemoAdapter({ repositoryCount: 40, revision }).files())
    for (const p of f.permissions)
      if (p.type === "user") logins.push(`${f.name} ${p.emailAddress} ${p.role}`);
  return logins.sort();
};

describe("GitHub demo revisions", () => {
  it("reads as the curated organization at revision 0, and the same at a revision every time", async () => {
    expect(githubDriftAt(40, GITHUB_DEMO_REPOS.length, 0).size).toBe(0);
    expect(await publicRepos(0)).toEqual([
      "northwind-labs/docs",
      "northwind-labs/infra-credentials",
      "northwind-labs/sdk-js",
      "northwind-labs/website",
    ]);
    expect(await publicRepos(19)).toEqual(await publicRepos(19));
  });

  it("makes a quiet repository public every eight revisions, private again 21 revisions later", async () => {
    const curated = await publicRepos(0);
    const at = async (r: number) => (await publicRepos(r)).filter((n) => !curated.includes(n));
    expect(await at(3)).toEqual([]);
    const first = await at(4);
    expect(first).toHaveLength(1);
    expect(first[0]).toMatch(/^northwind-labs\/service-\d{4}$/);
    expect(await at(24)).toEqual(expect.arrayContaining(first));
    expect(await at(24)).toHaveLength(3);
    // Made public at 4, private at 25; those of 12 and 20 remain.
    expect(await at(25)).not.toEqual(expect.arrayContaining(first));
    expect(await at(25)).toHaveLength(2);
  });

  it("gives an outside collaborator write for 28 revisions, alternating with the public ones", async () => {
    const base = await outside(0);
    const added = async (r: number) => (await outside(r)).filter((l) => !base.includes(l));
    expect(await added(7)).toEqual([]);
    expect(await added(8)).toEqual([
      expect.stringMatching(/^northwind-labs\/service-\d{4} vendor-8@users\.noreply\.github\.com writer$/),
    ]);
    expect(await added(35)).toHaveLength(4);
    expect((await added(36)).some((l) => l.includes(" vendor-8@"))).toBe(false);
    // Never a curated repository: their findings are the same at every revision.
    for (const l of await added(200)) expect(l).toMatch(/^northwind-labs\/service-/);
  });
});
