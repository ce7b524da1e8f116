// The one interface remediation writes to a source through (issue 19). Every method is one
// documented REST call (or two: a read of the pre-image, then the change), idempotent in effect:
// a change already made answers `already_gone` / `unchanged`, never a second change.

import {
  PERMISSION_ROLE_RANK,
  type TAccessRequirement,
  type TPermission,
  type TPermissionRole,
} from "./types";

/** What a remediation step does at the source. */
export type TWriteAction =
  | "remove_public_link"
  | "remove_external_user"
  | "remove_external_domain"
  | "downgrade_permission"
  | "revoke_oauth_grant"
  | "transfer_ownership"
  | "remove_org_wide_link"
  | "remove_everyone_grant"
  | "remove_group_grant"
  | "restrict_org_wide_link"
  | "delete_deploy_key";

/** A file as the writer needs it: its id at the source and the drive that holds it. */
export type TWriteFile = {
  id: string;
  /** Shared drive (Google) / drive (Microsoft) id; null for a personal drive (Google My Drive). */
  driveId: string | null;
  /** The owner (Google impersonates them for My Drive files; Microsoft: their OneDrive). */
  ownerEmail: string;
};

/**
 * A permission exactly as the source had it before a change: what undo re-creates. `extra` holds
 * source-specific fields undo needs (Google `allowFileDiscovery`, `expirationTime`; Microsoft
 * link `scope`/`type`, `grantedToV2`), opaque to everyone but the writer that read it.
 */
export type TPermissionImage = TPermission & { extra?: Record<string, unknown> };

/** An app's grant to a user, as the store keeps it (oauth_grants). */
export type TWriteGrant = {
  /** The grant's id at the source (TAppGrant.id): Google `<userKey>:<clientId>`, Graph grant id. */
  id: string;
  clientId: string;
  userEmail: string;
};

/** A grant as the source had it before a revoke, when the source can grant it back. */
export type TGrantImage = { id: string; extra: Record<string, unknown> };

/**
 * A repository's deploy key as the source had it before it was deleted (GitHub
 * `GET /repos/{owner}/{repo}/keys/{key_id}`): `key` is the public key, what undo adds back.
 */
export type TDeployKeyImage = { id: string; title: string; key: string; readOnly: boolean };

/**
 * How `updatePermissionRole` changes a role. `lower` (a remediation's downgrade) only ever lowers
 * it, by PERMISSION_ROLE_RANK: a permission already at or below the role is left as it is
 * (`already_gone`), never raised to it. `restore` (undo) sets the role it had back, exactly.
 */
export type TRoleChange = "lower" | "restore";

/** Whether lowering a permission from `current` to `target` changes anything (never a raise). */
export const ranksAbove = (current: TPermissionRole, target: TPermissionRole): boolean =>
  PERMISSION_ROLE_RANK[current] > PERMISSION_ROLE_RANK[target];

/** The outcome of one change: made now, or found already made (404, gone, role already lower). */
export type TWriteOutcome = "applied" | "already_gone";

/**
 * The source refused a change, with its own words: the HTTP status, the source's error code
 * (Google `reason`, Graph `error.code`) and message. `retryAfterMs` is set for a 429/503 the
 * writer's own retries could not ride out. Auth failures stay SourceAuthError, an unreachable
 * source SourceUnavailableError (types.ts).
 */
export class SourceWriteError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = "SourceWriteError";
  }
}

/**
 * Why a step cannot be undone, when it cannot (the plan shows it before anyone approves).
 * Google cannot re-issue a revoked OAuth token; a Microsoft anonymous link, once deleted, comes
 * back only as a new link with a new URL.
 */
export type TReversibility = { reversible: true; caveat?: string } | { reversible: false; reason: string };

export type TSourceWriter = {
  /** The scopes or application permissions each action needs (documented; checked on connect). */
  requirements: () => TAccessRequirement[];
  /** Whether a change of this kind can be put back on this source (before any call is made). */
  reversibility: (action: TWriteAction, permission?: TPermission) => TReversibility;
  /** The permission as the source has it now; null when it is gone (or the file is). */
  readPermission: (file: TWriteFile, permissionId: string) => Promise<TPermissionImage | null>;
  /** Deletes one permission or sharing link (public link, external user, external domain). */
  deletePermission: (file: TWriteFile, permissionId: string) => Promise<TWriteOutcome>;
  /**
   * Lowers a permission's role (`lower`, the default: `already_gone` when gone or already at or
   * below it) or, on undo, sets its former role back (`restore`: `already_gone` when already so).
   */
  updatePermissionRole: (
    file: TWriteFile,
    permissionId: string,
    role: TPermissionRole,
    how?: TRoleChange,
  ) => Promise<TWriteOutcome>;
  /**
   * Makes a searchable organization-wide link link-only (issue 30): people in the organization
   * can still open it with its URL, but no longer find it by search (Drive `allowFileDiscovery`).
   * `already_gone` when the link is gone or already link-only. Undo is `restorePermission` with
   * the pre-image (searchable again). Absent or SourceWriteError 400 `unsupported` where the
   * source has no such change (Microsoft: a link's scope is fixed when it is made).
   */
  restrictLink?: (file: TWriteFile, permissionId: string) => Promise<TWriteOutcome>;
  /** Undo of a delete: re-creates the permission from its pre-image; returns the source's new id. */
  restorePermission: (file: TWriteFile, image: TPermissionImage) => Promise<{ id: string }>;
  /**
   * Makes `toEmail` (an internal user) the file's owner; the previous owner keeps writer access.
   * Undo transfers it back. Throws SourceWriteError 400 `unsupported` where the source has no
   * such operation for the file (Microsoft OneDrive, Google shared-drive files).
   */
  transferOwnership: (file: TWriteFile, toEmail: string) => Promise<TWriteOutcome>;
  /** The grant as the source has it now; null when gone. */
  readGrant: (grant: TWriteGrant) => Promise<TGrantImage | null>;
  /** Revokes an app's grant (Google Directory tokens.delete; Graph grant / app role assignment delete). */
  revokeGrant: (grant: TWriteGrant) => Promise<TWriteOutcome>;
  /** Undo of a revoke where the source allows it (Graph); absent where it cannot be (Google). */
  restoreGrant?: (image: TGrantImage) => Promise<{ id: string }>;
  /** A repository's deploy key as the source has it now; null when it is gone (GitHub only). */
  readDeployKey?: (file: TWriteFile, keyId: string) => Promise<TDeployKeyImage | null>;
  /** Deletes a repository's deploy key: `already_gone` when it is gone. */
  deleteDeployKey?: (file: TWriteFile, keyId: string) => Promise<TWriteOutcome>;
  /**
   * Undo of a delete: the same public key added back, under a new id (the source's); a key with
   * the same public key already there (an undo retried) is that restore, nothing is added.
   */
  restoreDeployKey?: (file: TWriteFile, image: TDeployKeyImage) => Promise<{ id: string }>;
};

/**
 * What remediation needs from outside the connectors package to write to a demo tenant: its
 * overlay, persisted by the caller (the `demo_overlays` table), keyed as `demo/write.ts` says.
 */
export type TDemoOverlayStore = {
  /** Every overlay entry of the connector. */
  load: () => Promise<Map<string, Record<string, unknown>>>;
  put: (key: string, change: Record<string, unknown>) => Promise<void>;
  remove: (key: string) => Promise<void>;
};
