import type { TActivityEvent, TAppGrant, TPermission, TPermissionRole, TSourceFile } from "../types";
import type { TDemoOverlayStore } from "../write";

// The sandbox's writes (remediation on a demo connector), laid over the generated tenant. The
// overlay is a map of entries, persisted by the caller (TDemoOverlayStore, the demo_overlays
// table), read once per read of the tenant and never per file:
//   perm:<fileId>:<permissionId>  {op: "removed"} | {op: "role", role} | {op: "added", permission}
//                                 | {op: "link", link}  a link's discoverability / expiry changed
//   owner:<fileId>                {ownerEmail, previousOwner}
//   grant:<grantId>               {op: "revoked"}
// and the sandbox's scenarios (@posture/sandbox), changes a tenant's own people would make:
//   grant:<grantId>               {op: "added", grant}   an app granted by a user
//   activity:<eventId>            {op: "added", event}   an audit-log event (activity)
//   access                        {op: "revoked"}        the tenant's admin withdrew the service's access
// An undo writes the key's tombstone {op: "restored"} rather than deleting it: the change feed
// must still see that the file changed. Every entry carries `i` (the file's or grant's index in
// the tenant, so the feed regenerates it without a search) and `v`, its version: greater than
// every version before it and at least the writer's clock in ms (stamp()).

export type TPermEntry =
  | { op: "removed" }
  | { op: "role"; role: TPermissionRole }
  | { op: "added"; permission: TPermission }
  | { op: "link"; link: NonNullable<TPermission["link"]> }
  | { op: "restored" };

/**
 * The overlay entry that leaves a permission as `wanted`: none (restored) when the generated
 * tenant has it so, a role change when the generated permission has another role, else the
 * permission added. Shared by the suites' and GitHub's demo writers.
 */
export function permissionEntry(generated: TPermission | undefined, wanted: TPermission): TPermEntry {
  if (generated?.role === wanted.role) return { op: "restored" };
  if (generated) return { op: "role", role: wanted.role };
  return { op: "added", permission: wanted };
}

export type TOwnerEntry = { ownerEmail: string; previousOwner: string } | { op: "restored" };

/** One file's overlay: its permission entries by permission id, and its owner change. */
export type TFileOverlay = { perms: Map<string, TPermEntry>; owner: TOwnerEntry | null };

export type TOverlay = {
  /** The greatest version of any entry: a change feed cursor's position in the overlay. */
  version: number;
  files: Map<string, TFileOverlay>;
  revokedGrants: Set<string>;
  /** Grants the sandbox's scenarios added (`grant:<id>` {op: "added"}), in key order. */
  addedGrants: TAppGrant[];
  /** Activity the sandbox's scenarios added, oldest first. */
  activity: TActivityEvent[];
  /** The tenant withdrew the service's access: every read is refused as a real source refuses it. */
  accessRevoked: boolean;
  /** Every entry's target and version: which files (by index) changed after a version. */
  stamps: Array<{ kind: "file" | "grant"; index: number; version: number }>;
  /** The raw entries, for the writer. */
  entries: Map<string, Record<string, unknown>>;
};

export const EMPTY_OVERLAY: TOverlay = {
  version: 0,
  files: new Map(),
  revokedGrants: new Set(),
  addedGrants: [],
  activity: [],
  accessRevoked: false,
  stamps: [],
  entries: new Map(),
};

/**
 * How far back (in versions, i.e. ms of the writers' clocks) an incremental read looks past its
 * cursor: a writer that loaded the overlay before a reader's snapshot and stamped its entry at most
 * this long before committing it is still reported. Re-reporting a file is harmless.
 */
export const OVERLAY_FEED_SLACK = 60_000;

const ROLES = new Set<TPermissionRole>(["owner", "organizer", "writer", "commenter", "reader"]);
const isString = (v: unknown): v is string => typeof v === "string";

function isGrant(v: unknown): v is TAppGrant {
  const g = v as Partial<TAppGrant> | null;
  return (
    typeof g === "object" &&
    g !== null &&
    isString(g.id) &&
    isString(g.clientId) &&
    isString(g.userEmail) &&
    Array.isArray(g.scopes) &&
    g.scopes.every(isString)
  );
}

function isActivity(v: unknown): v is TActivityEvent {
  const e = v as Partial<TActivityEvent> | null;
  return typeof e === "object" && e !== null && isString(e.id) && isString(e.at) && isString(e.actorEmail);
}

function permEntryOf(change: Record<string, unknown>): TPermEntry | null {
  switch (change.op) {
    case "removed":
    case "restored":
      return { op: change.op };
    case "role":
      return ROLES.has(change.role as TPermissionRole)
        ? { op: "role", role: change.role as TPermissionRole }
        : null;
    case "link": {
      const link = change.link as TPermission["link"] | undefined;
      return link &&
        typeof link.discoverable === "boolean" &&
        (link.expiresAt === null || isString(link.expiresAt))
        ? { op: "link", link: { expiresAt: link.expiresAt, discoverable: link.discoverable } }
        : null;
    }
    case "added": {
      const p = change.permission as TPermission | undefined;
      return p && isString(p.id) && ROLES.has(p.role) ? { op: "added", permission: p } : null;
    }
    default:
      return null;
  }
}

function ownerEntryOf(change: Record<string, unknown>): TOwnerEntry | null {
  if (change.op === "restored") return { op: "restored" };
  return isString(change.ownerEmail) && isString(change.previousOwner)
    ? { ownerEmail: change.ownerEmail, previousOwner: change.previousOwner }
    : null;
}

function fileOverlayOf(files: Map<string, TFileOverlay>, fileId: string): TFileOverlay {
  let overlay = files.get(fileId);
  if (!overlay) files.set(fileId, (overlay = { perms: new Map(), owner: null }));
  return overlay;
}

/** The overlay as a reader uses it, from the store's entries (malformed ones are ignored). */
export function indexOverlay(entries: Map<string, Record<string, unknown>>): TOverlay {
  const overlay: TOverlay = {
    ...EMPTY_OVERLAY,
    files: new Map(),
    revokedGrants: new Set(),
    addedGrants: [],
    activity: [],
    stamps: [],
    entries,
  };
  for (const [key, change] of entries) {
    const version = typeof change.v === "number" ? change.v : 0;
    const index = typeof change.i === "number" && Number.isInteger(change.i) ? change.i : -1;
    overlay.version = Math.max(overlay.version, version);
    const [kind, ...rest] = key.split(":");
    if (kind === "perm" && rest.length === 2) {
      const entry = permEntryOf(change);
      if (!entry) continue;
      fileOverlayOf(overlay.files, rest[0] ?? "").perms.set(rest[1] ?? "", entry);
      if (index >= 0) overlay.stamps.push({ kind: "file", index, version });
    } else if (kind === "owner" && rest.length === 1) {
      const entry = ownerEntryOf(change);
      if (!entry) continue;
      fileOverlayOf(overlay.files, rest[0] ?? "").owner = entry;
      if (index >= 0) overlay.stamps.push({ kind: "file", index, version });
    } else if (kind === "grant" && rest.length === 1) {
      if (change.op === "revoked") overlay.revokedGrants.add(rest[0] ?? "");
      else if (change.op === "added" && isGrant(change.grant)) overlay.addedGrants.push(change.grant);
      if (index >= 0) overlay.stamps.push({ kind: "grant", index, version });
    } else if (kind === "activity" && rest.length >= 1) {
      if (change.op === "added" && isActivity(change.event)) overlay.activity.push(change.event);
    } else if (kind === "access" && rest.length === 0) {
      overlay.accessRevoked = change.op === "revoked";
    }
  }
  overlay.activity.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  return overlay;
}

export async function loadOverlay(store: TDemoOverlayStore | undefined): Promise<TOverlay> {
  return store ? indexOverlay(await store.load()) : EMPTY_OVERLAY;
}

/** A new entry's version: after every entry the writer saw, and at least its clock. */
export function stamp(overlay: TOverlay, now = Date.now()): number {
  return Math.max(overlay.version + 1, now);
}

/** The indices of the files whose entries were written after `since` (less the slack), in order. */
export function filesChangedSince(overlay: TOverlay, since: number): number[] {
  const after = since - OVERLAY_FEED_SLACK;
  const indices = new Set<number>();
  for (const s of overlay.stamps) if (s.kind === "file" && s.version > after) indices.add(s.index);
  return [...indices].sort((a, b) => a - b);
}

/** The demo's own permission ids start with the file's index in base 36 (files.ts). */
export function fileIndexOfPermission(permissionId: string): number | null {
  const match = /^([0-9a-z]{1,8})-/.exec(permissionId);
  if (!match?.[1]) return null;
  const index = parseInt(match[1], 36);
  return Number.isSafeInteger(index) ? index : null;
}

/**
 * The file with its overlay: owner change first (the new owner takes the owner permission and
 * any permission of their own, the previous one keeps writer access as `<pid>-p`), then each
 * permission entry. The generated file is not changed.
 */
export function overlayFile(file: TSourceFile, overlay: TFileOverlay | undefined, pid: string): TSourceFile {
  if (!overlay) return file;
  let permissions = file.permissions;
  let ownerEmail = file.ownerEmail;
  const owner = overlay.owner;
  if (owner && !("op" in owner)) {
    ownerEmail = owner.ownerEmail;
    permissions = permissions
      .filter((p) => p.role === "owner" || p.emailAddress !== owner.ownerEmail)
      .map((p) => (p.role === "owner" ? { ...p, emailAddress: owner.ownerEmail } : p));
    if (!permissions.some((p) => p.emailAddress === owner.previousOwner))
      permissions.push({
        id: `${pid}-p`,
        type: "user",
        role: "writer",
        emailAddress: owner.previousOwner,
      });
  }
  for (const [id, entry] of overlay.perms) {
    if (entry.op === "removed") permissions = permissions.filter((p) => p.id !== id);
    else if (entry.op === "role")
      permissions = permissions.map((p) => (p.id === id ? { ...p, role: entry.role } : p));
    else if (entry.op === "link")
      permissions = permissions.map((p) => (p.id === id ? { ...p, link: entry.link } : p));
    else if (entry.op === "added" && !permissions.some((p) => p.id === id))
      permissions = [...permissions, { ...entry.permission, id }];
  }
  return permissions === file.permissions && ownerEmail === file.ownerEmail
    ? file
    : { ...file, ownerEmail, permissions };
}
