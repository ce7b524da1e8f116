import { type TMsPermission } from "@posture/connectors/wire";
import { type TGraphFixture } from "./fake-graph";
import { type TDriveDeltaLog, type TFakeDriveItem } from "./fake-graph-delta";

// The fake tenant changing under the connector, as an admin or its users would change it: each
// change lands in the fixture the fake serves and in its drives' delta logs.

/**
 * Changes to the fake tenant, each recorded in its drives' delta logs as Graph would report it.
 * Items name their folder in `parentReference.id` (none: the drive's root).
 */
export type TGraphTenant = {
  /** Adds an item or replaces it (content, name, move): a change every delta reader sees. */
  putItem: (driveId: string, item: TFakeDriveItem) => void;
  /** Replaces an item's permissions: a sharing change, inherited by everything under it. */
  setPermissions: (driveId: string, itemId: string, permissions: TMsPermission[]) => void;
  /** Relabels a file (the label is written into the file: a content change). */
  setLabels: (driveId: string, itemId: string, sensitivityLabelIds: string[]) => void;
  /** Deletes an item and everything under it; delta reports the item alone. */
  deleteItem: (driveId: string, itemId: string) => void;
  addDrive: (drive: TGraphFixture["drives"][number]) => void;
  deleteDrive: (driveId: string) => void;
  /** Changes a user's directory entry (a rename changes their `mail` / `userPrincipalName`). */
  updateUser: (userId: string, patch: Partial<TGraphFixture["users"][number]>) => void;
  /** Deletes a user and their OneDrive. */
  deleteUser: (userId: string) => void;
  /** Every delta token issued so far for the drive (or every drive) answers 410 from now on. */
  expireDeltaTokens: (driveId?: string) => void;
};

export function tenantOf(fixture: TGraphFixture, log: TDriveDeltaLog): TGraphTenant {
  const drive = (driveId: string) => {
    const found = fixture.drives.find((d) => d.id === driveId);
    if (!found) throw new Error(`fake Graph: no drive ${driveId}`);
    return found;
  };
  const item = (driveId: string, itemId: string) => {
    const found = drive(driveId).items.find((i) => i.id === itemId);
    if (!found) throw new Error(`fake Graph: no item ${itemId} in drive ${driveId}`);
    return found;
  };
  const deleteDrive = (driveId: string) => {
    fixture.drives.splice(0, fixture.drives.length, ...fixture.drives.filter((d) => d.id !== driveId));
    log.forget(driveId);
  };
  return {
    putItem: (driveId, next) => {
      const items = drive(driveId).items;
      const at = items.findIndex((i) => i.id === next.id);
      if (at >= 0) items[at] = next;
      else items.push(next);
      log.touched(drive(driveId), next.id ?? "");
    },
    setPermissions: (driveId, itemId, permissions) => {
      item(driveId, itemId).permissions = permissions;
      log.sharingChanged(drive(driveId), itemId);
    },
    setLabels: (driveId, itemId, sensitivityLabelIds) => {
      item(driveId, itemId).sensitivityLabelIds = sensitivityLabelIds;
      log.touched(drive(driveId), itemId);
    },
    deleteItem: (driveId, itemId) => log.deleted(drive(driveId), itemId),
    addDrive: (next) => {
      fixture.drives.push(next);
      log.track(next);
    },
    deleteDrive,
    updateUser: (userId, patch) => {
      const user = fixture.users.find((u) => u.id === userId);
      if (!user) throw new Error(`fake Graph: no user ${userId}`);
      Object.assign(user, patch);
    },
    deleteUser: (userId) => {
      fixture.users.splice(0, fixture.users.length, ...fixture.users.filter((u) => u.id !== userId));
      for (const d of fixture.drives.filter(
        (x) => x.driveType !== "documentLibrary" && x.owner?.user?.id === userId,
      )) {
        deleteDrive(d.id ?? "");
      }
    },
    expireDeltaTokens: (driveId) => log.expire(driveId),
  };
}
