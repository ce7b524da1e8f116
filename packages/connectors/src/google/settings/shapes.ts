import type { TSettingValue } from "../../types";
import type { TGAdminUser, TPolicyValue, TRoleData } from "./api";

/**
 * A setting read from the Cloud Identity Policy API: the policy's setting type (without the
 * `settings/` prefix), how the value is read from `setting.value`, Google's value when no policy
 * is returned, and which of two values is the less secure (the tenant's value is the least secure
 * of the root org unit's and every org-unit or group override's).
 */
export type TPolicySetting = {
  kind: "policy";
  key: string;
  title: string;
  demo: TSettingValue;
  setting: string;
  field: string;
  read: (value: TPolicyValue) => TSettingValue | undefined;
  googleDefault: TSettingValue;
  weaker: (a: TSettingValue, b: TSettingValue) => TSettingValue;
  /** Judged only where admin accounts live (their org units' effective policy, plus group policies). */
  adminsOnly?: boolean;
  /** Several policies share the setting type (alert rules); this one is those the predicate picks. */
  where?: (value: TPolicyValue) => boolean;
  /** A customer-wide setting (alert rules): any policy of it is the tenant's, not an override. */
  customerLevel?: boolean;
};

/** A setting computed from the Admin SDK Directory's admin accounts. */
export type TDirectorySetting = {
  kind: "directory";
  key: string;
  title: string;
  demo: TSettingValue;
  source: string;
  compute: (admins: readonly TGAdminUser[]) => TSettingValue;
};

/** A setting computed from the admin accounts and their role assignments. */
export type TRolesSetting = Omit<TDirectorySetting, "kind" | "compute"> & {
  kind: "roles";
  compute: (admins: readonly TGAdminUser[], roles: TRoleData) => TSettingValue;
};

export type TSettingDef = TPolicySetting | TDirectorySetting | TRolesSetting;

export type TPolicyShape = Pick<TPolicySetting, "read" | "weaker" | "googleDefault">;

/** Struct values arrive as JSON booleans and numbers; their string spellings are read too. */
export function asBoolean(raw: unknown): boolean | undefined {
  if (typeof raw === "boolean") return raw;
  if (typeof raw === "string" && /^(true|false)$/i.test(raw)) return raw.toLowerCase() === "true";
  return undefined;
}

function asNumber(raw: unknown): number | undefined {
  if (typeof raw === "number" && Number.isFinite(raw)) return raw;
  if (typeof raw === "string" && /^\d+$/.test(raw)) return Number(raw);
  return undefined;
}

/** A boolean field; `secure` is the value that passes, so the other one is the weaker. */
export function flag(
  field: string,
  secure: boolean,
  googleDefault: boolean,
): TPolicyShape & { field: string } {
  return {
    field,
    googleDefault,
    read: (v) => asBoolean(v[field]),
    weaker: (a, b) => (a === secure ? b : a),
  };
}

/** Of two enum values ordered most to least secure, the less secure; an unknown value counts as least. */
export function lessSecureOf(bestToWorst: readonly string[]) {
  const rank = (x: TSettingValue) => {
    const i = typeof x === "string" ? bestToWorst.indexOf(x) : -1;
    return i < 0 ? bestToWorst.length : i;
  };
  return (a: TSettingValue, b: TSettingValue) => (rank(b) > rank(a) ? b : a);
}

/** An enum field, its values from most to least secure. */
export function choice(
  field: string,
  bestToWorst: readonly string[],
  googleDefault: string,
): TPolicyShape & { field: string } {
  return {
    field,
    googleDefault,
    read: (v) => (typeof v[field] === "string" ? v[field] : undefined),
    weaker: lessSecureOf(bestToWorst),
  };
}

/** A number where more is more secure (a minimum password length). */
export function atLeast(field: string, googleDefault: number): TPolicyShape & { field: string } {
  return {
    field,
    googleDefault,
    read: (v) => asNumber(v[field]),
    weaker: (a, b) => (typeof a === "number" && typeof b === "number" ? Math.min(a, b) : (a ?? b)),
  };
}

/** A google.protobuf.Duration (`"43200s"`) read as seconds; fewer is more secure. */
export function durationAtMost(
  field: string,
  googleDefaultSeconds: number,
): TPolicyShape & { field: string } {
  return {
    field,
    googleDefault: googleDefaultSeconds,
    read: (v) => {
      const raw = v[field];
      const match = typeof raw === "string" ? /^(\d+)(?:\.\d+)?s$/.exec(raw) : null;
      return match ? Number(match[1]) : undefined;
    },
    weaker: (a, b) => (typeof a === "number" && typeof b === "number" ? Math.max(a, b) : (a ?? b)),
  };
}

export const policy = (
  key: string,
  title: string,
  setting: string,
  shape: TPolicyShape & { field: string },
  demo: TSettingValue,
  extra: Pick<TPolicySetting, "adminsOnly" | "where" | "customerLevel"> = {},
): TPolicySetting => ({ kind: "policy", key, title, setting, demo, ...shape, ...extra });
