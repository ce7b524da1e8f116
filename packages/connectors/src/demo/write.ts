import type { TSuiteType, TPermission, TSourceFile } from "../types";
import {
  SourceWriteError,
  type TDemoOverlayStore,
  type TGrantImage,
  type TSourceWriter,
  type TWriteFile,
  type TWriteGrant,
  type TWriteOutcome,
  ranksAbove,
} from "../write";
import { NO_RESTRICT_REASON, reversibilityOf } from "../reversibility";
import { appsOf, grantAt, grantLife } from "./apps";
import { driveIdAt } from "./drives";
import { fileAt } from "./files";
import type { TDemoOptions } from "./index";
import {
  fileIndexOfPermission,
  indexOverlay,
  overlayFile,
  permissionEntry,
  stamp,
  type TOverlay,
} from "./overlay";
import { fnv1a, rngFor, STREAMS } from "./prng";
import { existsAt, fileClock, fileGrowth, grantGrowth, slotsAt } from "./revisions";
import { shapeOf } from "./shape";

/**
 * What the real source of a connector's type can put back, mirrored so the sandbox teaches the
 * truth: Google cannot re-issue a revoked OAuth token; a Microsoft anonymous link, once deleted,
 * comes back only as a new link with a new URL; OneDrive has no ownership transfer.
 */
/** Where a file is in the generated tenant, as it is now (overlay applied) and as generated. */
type TLocated = { index: number; pid: string; base: TSourceFile; current: TSourceFile };

const notFound = (type: TSuiteType, fileId: string) =>
  type === "google_workspace"
    ? new SourceWriteError(404, "notFound", `File not found: ${fileId}.`)
    : new SourceWriteError(404, "itemNotFound", "The resource could not be found.");

/**
 * The demo tenant's writer: each change is an overlay entry (TDemoOverlayStore) that the demo
 * adapter lays over its reads, so the next scan sees it, and undo brings the synthetic tenant
 * back. Keys and entries: overlay.ts. Every call loads the overlay once (a sandbox's overlay is
 * as small as what was remediated in it) and writes at most one entry.
 */
export function createDemoWriter(opts: TDemoOptions & { overlay: TDemoOverlayStore }): TSourceWriter {
  const shape = shapeOf(opts);
  const store = opts.overlay;
  const driveIds = Array.from({ length: shape.driveCount }, (_, d) => driveIdAt(shape, d));
  const growth = fileGrowth(shape);
  let apps: ReturnType<typeof appsOf> | null = null;

  const load = async () => indexOverlay(await store.load());
  const put = (overlay: TOverlay, key: string, index: number, change: Record<string, unknown>) =>
    store.put(key, { ...change, i: index, v: stamp(overlay) });

  /** File `index` if it exists now and is `fileId`, with the overlay laid over it. */
  const fileAtIndex = (overlay: TOverlay, index: number, fileId: string): TLocated | null => {
    if (index < 0 || index >= slotsAt(growth, shape.revision)) return null;
    const clock = fileClock(shape, growth, index, shape.revision);
    if (!existsAt(clock, shape.revision)) return null;
    const base = fileAt(shape, index, driveIds, clock);
    if (base.id !== fileId) return null;
    const pid = index.toString(36);
    return { index, pid, base, current: overlayFile(base, overlay.files.get(fileId), pid) };
  };

  const locateByPermission = (overlay: TOverlay, file: TWriteFile, permissionId: string) => {
    const index = fileIndexOfPermission(permissionId);
    return index === null ? null : fileAtIndex(overlay, index, file.id);
  };

  /**
   * A file from its id alone (an ownership transfer names no permission): the index the overlay
   * recorded for it, else one pass over the tenant's file ids (only the id is generated).
   */
  const locateById = (overlay: TOverlay, fileId: string): TLocated | null => {
    const recorded = overlay.entries.get(`owner:${fileId}`)?.i;
    if (typeof recorded === "number") return fileAtIndex(overlay, recorded, fileId);
    const slots = slotsAt(growth, shape.revision);
    for (let i = 0; i < slots; i++)
      if (shape.flavour.fileId(rngFor(shape.words, STREAMS.file, i)) === fileId)
        return fileAtIndex(overlay, i, fileId);
    return null;
  };

  const refuseOwner = (permission: TPermission) => {
    if (permission.role === "owner" || permission.role === "organizer")
      throw shape.type === "google_workspace"
        ? new SourceWriteError(403, "cannotRemoveOwner", "The owner of a file cannot be removed.")
        : new SourceWriteError(403, "accessDenied", "The owner's permission cannot be changed.");
  };

  const grantIndexOf = (grantId: string): number | null => {
    const match = /^grant-([0-9a-z]{1,8})$/.exec(grantId);
    return match?.[1] ? parseInt(match[1], 36) : null;
  };

  /** The grant's index if it exists now (revoked in the overlay or not). */
  const generatedGrant = (grantId: string): number | null => {
    const index = grantIndexOf(grantId);
    if (index === null || index >= slotsAt(grantGrowth(shape), shape.revision)) return null;
    apps ??= appsOf(shape);
    if (shape.revision >= grantLife(shape, apps, index).end) return null;
    return grantAt(shape, apps, index).id === grantId ? index : null;
  };

  /** A grant a sandbox scenario added to the tenant (overlay `grant:<id>` {op: "added"}). */
  const addedGrant = (overlay: TOverlay, grantId: string) =>
    overlay.addedGrants.some((g) => g.id === grantId);

  const writer: TSourceWriter = {
    // The sandbox grants everything: no scope to ask for.
    requirements: () => [],
    reversibility: (action, permission) => reversibilityOf(shape.type, action, permission),

    readPermission: async (file, permissionId) => {
      const located = locateByPermission(await load(), file, permissionId);
      const permission = located?.current.permissions.find((p) => p.id === permissionId);
      return permission ? { ...permission } : null;
    },

    deletePermission: async (file, permissionId) => {
      const overlay = await load();
      const located = locateByPermission(overlay, file, permissionId);
      const permission = located?.current.permissions.find((p) => p.id === permissionId);
      if (!located || !permission) return "already_gone";
      refuseOwner(permission);
      await put(overlay, `perm:${file.id}:${permissionId}`, located.index, { op: "removed" });
      return "applied";
    },

    updatePermissionRole: async (file, permissionId, role, how = "lower") => {
      const overlay = await load();
      const located = locateByPermission(overlay, file, permissionId);
      const permission = located?.current.permissions.find((p) => p.id === permissionId);
      if (!located || !permission) return "already_gone";
      // A downgrade compares by rank: a permission already below the role is never raised to it.
      if (how === "lower" ? !ranksAbove(permission.role, role) : permission.role === role)
        return "already_gone";
      refuseOwner(permission);
      if (role === "owner" || role === "organizer")
        throw new SourceWriteError(400, "invalidSharingRequest", `A permission cannot be made ${role} here.`);
      const key = `perm:${file.id}:${permissionId}`;
      const generated = located.base.permissions.find((p) => p.id === permissionId);
      await put(overlay, key, located.index, permissionEntry(generated, { ...permission, role }));
      return "applied";
    },

    restrictLink: async (file, permissionId) => {
      if (shape.type === "microsoft_365") throw new SourceWriteError(400, "unsupported", NO_RESTRICT_REASON);
      const overlay = await load();
      const located = locateByPermission(overlay, file, permissionId);
      const permission = located?.current.permissions.find((p) => p.id === permissionId);
      if (!located || !permission) return "already_gone";
      if (permission.type !== "domain" && permission.type !== "anyone")
        throw new SourceWriteError(400, "unsupported", `Permission ${permissionId} is not a link`);
      if (permission.link?.discoverable !== true) return "already_gone";
      const link = { expiresAt: permission.link.expiresAt, discoverable: false };
      const key = `perm:${file.id}:${permissionId}`;
      const generated = located.base.permissions.find((p) => p.id === permissionId);
      if (generated) await put(overlay, key, located.index, { op: "link", link });
      else await put(overlay, key, located.index, { op: "added", permission: { ...permission, link } });
      return "applied";
    },

    restorePermission: async (file, image) => {
      const overlay = await load();
      const located = locateByPermission(overlay, file, image.id);
      if (!located) throw notFound(shape.type, file.id);
      const { extra: _extra, ...permission } = image;
      const sameLink = (p: TPermission | undefined) =>
        p?.link?.discoverable === image.link?.discoverable && p?.link?.expiresAt === image.link?.expiresAt;
      // Microsoft re-creates an anonymous link as a new link: a new id (and URL), the same one
      // for a retry of the same restore, so it never makes two.
      const id =
        shape.type === "microsoft_365" && image.type === "anyone"
          ? `${located.pid}-l${fnv1a(image.id).toString(36)}`
          : image.id;
      const key = `perm:${file.id}:${id}`;
      const current = located.current.permissions.find((p) => p.id === id);
      if (current?.role === image.role && sameLink(current)) return { id };
      const generated = located.base.permissions.find((p) => p.id === id);
      if (generated?.role === image.role && sameLink(generated))
        await put(overlay, key, located.index, { op: "restored" });
      else if (generated?.role === image.role && image.link)
        await put(overlay, key, located.index, { op: "link", link: image.link });
      else if (generated) await put(overlay, key, located.index, { op: "role", role: image.role });
      else await put(overlay, key, located.index, { op: "added", permission: { ...permission, id } });
      return { id };
    },

    transferOwnership: async (file, toEmail) => {
      if (shape.type === "microsoft_365")
        throw new SourceWriteError(400, "unsupported", "OneDrive has no ownership transfer");
      if (file.driveId !== null)
        throw new SourceWriteError(
          400,
          "unsupported",
          "A shared drive's files are owned by the drive: there is no owner to transfer",
        );
      const to = toEmail.toLowerCase();
      const domain = to.split("@")[1] ?? "";
      if (!shape.internalDomains.includes(domain))
        throw new SourceWriteError(
          400,
          "invalidSharingRequest",
          'Bad Request. User message: "Ownership can only be transferred to another user in the same organization as the current owner."',
        );
      const overlay = await load();
      const located = locateById(overlay, file.id);
      if (!located || located.base.driveId !== null) return "already_gone";
      if (located.current.ownerEmail === to) return "already_gone";
      const key = `owner:${file.id}`;
      if (located.base.ownerEmail === to) await put(overlay, key, located.index, { op: "restored" });
      else
        await put(overlay, key, located.index, {
          ownerEmail: to,
          previousOwner: located.current.ownerEmail,
        });
      return "applied";
    },

    readGrant: async (grant) => {
      const overlay = await load();
      const exists = generatedGrant(grant.id) !== null || addedGrant(overlay, grant.id);
      if (!exists || overlay.revokedGrants.has(grant.id)) return null;
      return { id: grant.id, extra: { clientId: grant.clientId, userEmail: grant.userEmail } };
    },

    revokeGrant: async (grant: TWriteGrant): Promise<TWriteOutcome> => {
      const index = generatedGrant(grant.id);
      const overlay = await load();
      // A grant a sandbox scenario added: revoking it replaces its entry, so it is gone.
      if (index === null && addedGrant(overlay, grant.id)) {
        await put(overlay, `grant:${grant.id}`, -1, { op: "revoked" });
        return "applied";
      }
      if (index === null || overlay.revokedGrants.has(grant.id)) return "already_gone";
      await put(overlay, `grant:${grant.id}`, index, { op: "revoked" });
      return "applied";
    },
  };
  // Google cannot grant a revoked token back: the writer has no restoreGrant, as the real one.
  if (shape.type === "microsoft_365")
    writer.restoreGrant = async (image: TGrantImage) => {
      const index = generatedGrant(image.id);
      if (index === null)
        throw new SourceWriteError(
          404,
          "Request_ResourceNotFound",
          `Resource '${image.id}' does not exist or one of its queried reference-property objects are not present.`,
        );
      const overlay = await load();
      if (overlay.revokedGrants.has(image.id))
        await put(overlay, `grant:${image.id}`, index, { op: "restored" });
      return { id: image.id };
    };
  return writer;
}
