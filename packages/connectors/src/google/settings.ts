import type { TJsonClient } from "../http/client";
import type { TAccessRequirement, TSettingValue, TTenantSetting } from "../types";

/**
 * One Google Workspace tenant setting the connector reads: its key (what the checks of
 * `@posture/benchmarks` name), where it comes from, and the value the demo tenant has.
 */
export type TGoogleSettingSpec = { key: string; title: string; source: string; demo: TSettingValue };

export const GOOGLE_SETTINGS: readonly TGoogleSettingSpec[] = [];

/** The scopes reading the settings needs (merged into the connector's access list). */
export const GOOGLE_SETTINGS_ACCESS: readonly TAccessRequirement[] = [];

export type TGoogleSettingsClients = {
  /** Admin SDK (Directory, Reports): https://admin.googleapis.com */
  admin: TJsonClient;
  /** Cloud Identity Policy API: https://cloudidentity.googleapis.com */
  cloudIdentity: TJsonClient;
};

/** Every setting of GOOGLE_SETTINGS, read or marked unavailable (never throws for one setting). */
export async function readGoogleSettings(_clients: TGoogleSettingsClients): Promise<TTenantSetting[]> {
  return [];
}
