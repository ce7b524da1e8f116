import { evaluateTenantChecks, type TCheckResult, type TTenantCheck } from "@posture/benchmarks";
import type { TCoverageGap, TSourceAdapter, TTenantSetting } from "@posture/connectors";

export type TSettingsRead = {
  /** Every tenant check's result (the failing ones become findings). */
  tenantChecks: TCheckResult[];
  /** Settings that could not be read, as coverage gaps. */
  settingsGaps: TCoverageGap[];
};

/**
 * The tenant's settings against its benchmark. Reading them never fails the scan: a source that
 * answers none (an error thrown by the adapter) leaves every check unavailable, said so in the
 * scan's coverage.
 */
export async function readTenantSettings(
  adapter: TSourceAdapter,
  checks: readonly TTenantCheck[],
): Promise<TSettingsRead> {
  let settings: TTenantSetting[] = [];
  let gaps: TCoverageGap[] = [];
  try {
    settings = await adapter.tenantSettings();
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    gaps = [{ feature: "Tenant settings", missing: "read failed", detail: message.slice(0, 500) }];
  }
  const tenantChecks = evaluateTenantChecks(checks, settings);
  return { tenantChecks, settingsGaps: [...gaps, ...unavailableSettingGaps(settings, tenantChecks)] };
}

/** One gap per distinct reason settings were unavailable, naming the settings and the checks skipped. */
function unavailableSettingGaps(
  settings: readonly TTenantSetting[],
  results: readonly TCheckResult[],
): TCoverageGap[] {
  const byReason = new Map<string, string[]>();
  for (const s of settings) {
    if (!("unavailable" in s)) continue;
    byReason.set(s.unavailable, [...(byReason.get(s.unavailable) ?? []), s.key]);
  }
  return [...byReason].map(([reason, keys]) => {
    const skipped = results
      .filter((r) => r.status === "unavailable" && r.check.settings.some((k) => keys.includes(k)))
      .map((r) => r.check.id);
    return {
      feature: "Tenant settings",
      missing: reason,
      detail: `Not read: ${keys.join(", ")}.${skipped.length > 0 ? ` Checks not evaluated: ${skipped.join(", ")}.` : ""}`,
    };
  });
}

/** The adapter's gaps and the unavailable settings', each once. */
export function mergeCoverage(...lists: ReadonlyArray<readonly TCoverageGap[]>): TCoverageGap[] {
  const seen = new Map<string, TCoverageGap>();
  for (const list of lists)
    for (const g of list) {
      const key = JSON.stringify([g.feature, g.missing, g.detail]);
      if (!seen.has(key)) seen.set(key, { feature: g.feature, missing: g.missing, detail: g.detail });
    }
  return [...seen.values()];
}
