import type { TConnectorType, TSettingValue, TTenantSetting } from "@posture/connectors";
import { GITHUB_CHECKS } from "./github";
import { GOOGLE_WORKSPACE_CHECKS } from "./google-workspace";
import { MICROSOFT_365_CHECKS } from "./microsoft-365";
import type { TTenantCheck } from "./types";

export type TCheckStatus = "pass" | "fail" | "unavailable";

/** One check evaluated against a tenant's settings. */
export type TCheckResult = {
  check: TTenantCheck;
  status: TCheckStatus;
  /** The values of the check's settings that could be read, by key. */
  observed: Record<string, TSettingValue>;
  /** Why the check could not be evaluated (status `unavailable`). */
  reason?: string;
};

/** By type: a new source does not typecheck until it has its catalog (docs/sources/adding-a-source.md). */
const CHECKS_OF: Record<TConnectorType, readonly TTenantCheck[]> = {
  google_workspace: GOOGLE_WORKSPACE_CHECKS,
  microsoft_365: MICROSOFT_365_CHECKS,
  github: GITHUB_CHECKS,
};

/** The catalog of one source's checks. */
export function checksFor(type: TConnectorType): readonly TTenantCheck[] {
  return CHECKS_OF[type];
}

/**
 * Evaluates each check against the settings read. A check is `unavailable` (neither passed nor
 * failed) when any setting it reads is unavailable or was not read at all; a test that throws on
 * an unexpected value fails the check with the error as its reason.
 */
export function evaluateTenantChecks(
  checks: readonly TTenantCheck[],
  settings: readonly TTenantSetting[],
): TCheckResult[] {
  const byKey = new Map<string, TTenantSetting>();
  for (const s of settings) byKey.set(s.key, s);
  return checks.map((check) => {
    const observed: Record<string, TSettingValue> = {};
    const missing: string[] = [];
    for (const key of check.settings) {
      const setting = byKey.get(key);
      if (!setting) missing.push(`${key}: not read`);
      else if ("unavailable" in setting) missing.push(`${key}: ${setting.unavailable}`);
      else observed[key] = setting.value;
    }
    if (missing.length > 0) return { check, status: "unavailable", observed, reason: missing.join("; ") };
    try {
      return { check, status: check.test(observed) ? "pass" : "fail", observed };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return { check, status: "fail", observed, reason: `test failed on the values read: ${message}` };
    }
  });
}
