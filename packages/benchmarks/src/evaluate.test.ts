import { describe, expect, it } from "vitest";
import {
  createGithubDemoReads,
  GITHUB_ACTIONS_SETTINGS,
  GITHUB_ORG_SETTINGS,
  GOOGLE_SETTINGS,
  MICROSOFT_SETTINGS,
  type TTenantSetting,
} from "@posture/connectors";
import { COMPLIANCE_FRAMEWORKS } from "@posture/db";
import { checksFor, evaluateTenantChecks } from "./evaluate";
import { GITHUB_CHECKS } from "./github";
import { GOOGLE_WORKSPACE_CHECKS } from "./google-workspace";
import { MICROSOFT_365_CHECKS } from "./microsoft-365";
import { testCheck } from "./testing";
import type { TTenantCheck } from "./types";

const check = (id: string, settings: string[], test: TTenantCheck["test"]) =>
  testCheck({ id, settings, test });

const enforced = check("gws_2sv", ["2sv.enforced"], (v) => v["2sv.enforced"] === true);
const both = check("gws_both", ["a", "b"], (v) => v.a === "on" && Array.isArray(v.b) && v.b.length === 0);

describe("evaluateTenantChecks", () => {
  it("passes and fails on the values read, and reports what it observed", () => {
    const settings: TTenantSetting[] = [
      { key: "2sv.enforced", value: false, source: "GET x" },
      { key: "a", value: "on", source: "GET y" },
      { key: "b", value: [], source: "GET y" },
    ];
    const results = evaluateTenantChecks([enforced, both], settings);
    expect(results.map((r) => [r.check.id, r.status, r.observed, r.reason])).toEqual([
      ["gws_2sv", "fail", { "2sv.enforced": false }, undefined],
      ["gws_both", "pass", { a: "on", b: [] }, undefined],
    ]);
    const fixed = evaluateTenantChecks([enforced], [{ key: "2sv.enforced", value: true, source: "GET x" }]);
    expect(fixed[0]?.status).toBe("pass");
  });

  it("is unavailable, not failed, when a setting could not be read or is missing", () => {
    const results = evaluateTenantChecks(
      [enforced, both],
      [
        { key: "2sv.enforced", unavailable: "scope admin.directory.user.readonly not granted" },
        { key: "a", value: "off", source: "GET y" },
      ],
    );
    expect(results[0]).toMatchObject({
      status: "unavailable",
      observed: {},
      reason: "2sv.enforced: scope admin.directory.user.readonly not granted",
    });
    // b was never read: unavailable even though a alone would fail the test.
    expect(results[1]).toMatchObject({
      status: "unavailable",
      observed: { a: "off" },
      reason: "b: not read",
    });
  });

  it("fails a check whose test throws on an unexpected value, saying why", () => {
    const brittle = check("gws_brittle", ["list"], (v) => (v.list as string[]).includes("x"));
    const [result] = evaluateTenantChecks([brittle], [{ key: "list", value: null, source: "GET z" }]);
    expect(result?.status).toBe("fail");
    expect(result?.reason).toMatch(/^test failed on the values read: /);
  });

  it("names each source's catalog", () => {
    expect(checksFor("google_workspace")).toBe(GOOGLE_WORKSPACE_CHECKS);
    expect(checksFor("microsoft_365")).toBe(MICROSOFT_365_CHECKS);
  });
});

describe("the catalogs", () => {
  const catalogs = [
    { type: "google_workspace", checks: GOOGLE_WORKSPACE_CHECKS, keys: GOOGLE_SETTINGS.map((s) => s.key) },
    { type: "microsoft_365", checks: MICROSOFT_365_CHECKS, keys: MICROSOFT_SETTINGS.map((s) => s.key) },
    {
      type: "github",
      checks: GITHUB_CHECKS,
      keys: [
        ...GITHUB_ORG_SETTINGS.map((k) => `org.${k}`),
        ...GITHUB_ACTIONS_SETTINGS.map((k) => `actions.${k}`),
      ],
    },
  ] as const;

  it("github: the demo organization fails exactly the three checks, with the guide's ids", async () => {
    const settings = await createGithubDemoReads({}).tenantSettings();
    expect(
      evaluateTenantChecks(GITHUB_CHECKS, settings).map((r) => [r.check.id, r.check.benchmark.id, r.status]),
    ).toEqual([
      ["gh_org_2fa_required", "1.3.5", "fail"],
      ["gh_base_permission_strict", "1.3.8", "fail"],
      ["gh_public_repo_creation_limited", "1.2.2", "fail"],
    ]);
    const passing = settings.map((s) =>
      s.key === "org.two_factor_requirement_enabled"
        ? { ...s, value: true }
        : s.key === "org.default_repository_permission"
          ? { ...s, value: "read" }
          : s.key === "org.members_can_create_public_repositories"
            ? { ...s, value: false }
            : s,
    );
    expect(evaluateTenantChecks(GITHUB_CHECKS, passing).map((r) => r.status)).toEqual([
      "pass",
      "pass",
      "pass",
    ]);
  });

  it.each(catalogs)(
    "$type: each check reads only its source's settings and maps all five frameworks",
    (c) => {
      const keys = new Set<string>(c.keys);
      const ids = new Set<string>();
      for (const k of c.checks) {
        expect(k.source, k.id).toBe(c.type);
        expect(ids.has(k.id), `duplicate ${k.id}`).toBe(false);
        ids.add(k.id);
        expect(k.settings.length, k.id).toBeGreaterThan(0);
        for (const key of k.settings)
          expect(keys.has(key), `${k.id} reads unknown setting ${key}`).toBe(true);
        for (const framework of COMPLIANCE_FRAMEWORKS)
          expect(k.controls[framework]?.length ?? 0, `${k.id} maps no ${framework} control`).toBeGreaterThan(
            0,
          );
        expect(k.benchmark.id, k.id).toMatch(/^\d+(\.\d+)*$/);
        expect(k.benchmark.version, k.id).toMatch(/^\d+\.\d+\.\d+$/);
      }
    },
  );

  it.each(catalogs.filter((c) => c.type !== "github"))(
    "$type: the demo tenant's settings evaluate every check (none unavailable)",
    (c) => {
      const specs = c.type === "google_workspace" ? GOOGLE_SETTINGS : MICROSOFT_SETTINGS;
      const demo: TTenantSetting[] = specs.map((s) => ({ key: s.key, value: s.demo, source: "demo" }));
      for (const r of evaluateTenantChecks(c.checks, demo))
        expect(r.status, r.check.id).not.toBe("unavailable");
    },
  );
});
