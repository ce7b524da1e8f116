import type { TJsonClient } from "../http/client";
import type { TAccessRequirement, TSettingValue, TTenantSetting } from "../types";

/**
 * One Microsoft 365 tenant setting the connector reads: its key (what the checks of
 * `@posture/benchmarks` name), where it comes from, and the value the demo tenant has.
 */
export type TMicrosoftSettingSpec = { key: string; title: string; source: string; demo: TSettingValue };

export const MICROSOFT_SETTINGS: readonly TMicrosoftSettingSpec[] = [];

/** The application permissions reading the settings needs (merged into the connector's access list). */
export const MICROSOFT_SETTINGS_ACCESS: readonly TAccessRequirement[] = [];

/** Every setting of MICROSOFT_SETTINGS, read or marked unavailable (never throws for one setting). */
export async function readMicrosoftSettings(_graph: TJsonClient): Promise<TTenantSetting[]> {
  return [];
}
