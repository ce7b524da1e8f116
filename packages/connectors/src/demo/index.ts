import { SourceAuthError, type TActivityEvent, type TSourceAdapter } from "../types";
import type { TDemoOverlayStore } from "../write";
import { activityEvents } from "./activity";
import { appsOf, grantAt, grantLife } from "./apps";
import { driveAt, driveIdAt } from "./drives";
import { demoChangeFeed } from "./feed";
import { driveIndexOfFile, fileAt } from "./files";
import { demoGroups } from "./groups";
import { loadOverlay, overlayFile, type TOverlay } from "./overlay";
import { existsAt, fileClock, fileGrowth, grantGrowth, slotsAt, userGrowth } from "./revisions";
import { demoTenantSettings } from "./settings";
import { accessRequirementsOf } from "../access";
import { shapeOf, type TShapeInput } from "./shape";
import { userAt, userLife } from "./users";

/**
 * Seed, flavour, size, revision and clock: exactly what the workspace's shape is derived from;
 * and the sandbox writes (remediation) laid over it, when there are any (demo/write.ts).
 */
export type TDemoOptions = TShapeInput & { overlay?: TDemoOverlayStore };

/** What the demo workspace is made of, for seeding trusted domains and for tests. */
export type TDemoDescription = {
  domain: string;
  internalDomains: string[];
  /** Partners an organization would plausibly mark trusted. */
  trustedPartnerDomains: string[];
  untrustedDomains: string[];
  counts: { users: number; files: number; sharedDrives: number; appGrants: number };
};

export function describeDemoWorkspace(opts: TDemoOptions): TDemoDescription {
  const shape = shapeOf(opts);
  return {
    domain: shape.domain,
    internalDomains: [...shape.internalDomains],
    trustedPartnerDomains: [...shape.trustedPartnerDomains],
    untrustedDomains: [...shape.untrustedDomains],
    counts: {
      users: shape.userCount,
      files: shape.fileCount,
      sharedDrives: shape.driveCount,
      appGrants: shape.grantCount,
    },
  };
}

/**
 * A synthetic tenant, deterministic in (seed, type, size, revision, epoch), never in the wall
 * clock: every item is generated from its own index on demand, so any size streams in constant
 * memory. Each revision is a day of the tenant's life: about 1 % of files change, appear or go
 * away, some users join, leave, are suspended or elevated, grants are given, revoked and widened
 * (revisions.ts). `changeFeed` reports the file changes between two revisions.
 */
export function createDemoAdapter(opts: TDemoOptions): TSourceAdapter {
  const shape = shapeOf(opts);
  const driveIds = Array.from({ length: shape.driveCount }, (_, d) => driveIdAt(shape, d));
  const apps = appsOf(shape);
  const files = fileGrowth(shape);
  // Past revision 0 files come and go: the drives' counts are counted, once (a hash per file).
  let driveCounts: number[] | null = null;
  const countDriveFiles = () => {
    const counts = new Array<number>(shape.driveCount).fill(0);
    for (let i = 0; i < slotsAt(files, shape.revision); i++) {
      const d = driveIndexOfFile(shape, i);
      if (d !== null && existsAt(fileClock(shape, files, i, 0), shape.revision))
        counts[d] = (counts[d] ?? 0) + 1;
    }
    return counts;
  };

  // A sandbox scenario may withdraw the service's access (overlay `access`): the source then
  // refuses every read, as Google or Microsoft do once an admin removes the app.
  const readable = async (): Promise<TOverlay> => {
    const overlay = await loadOverlay(opts.overlay);
    if (overlay.accessRevoked)
      throw new SourceAuthError(
        "demo tenant: the administrator withdrew the service's access (unauthorized_client)",
      );
    return overlay;
  };

  return {
    workspace: async () => {
      await readable();
      return { domain: shape.domain, internalDomains: [...shape.internalDomains] };
    },
    users: async function* () {
      const slots = slotsAt(userGrowth(shape), shape.revision);
      for (let j = 0; j < slots; j++) if (shape.revision < userLife(shape, j).end) yield userAt(shape, j);
    },
    files: async function* () {
      // The sandbox's writes, loaded once for the whole read: a lookup per file, never a query.
      const overlay = await loadOverlay(opts.overlay);
      const slots = slotsAt(files, shape.revision);
      for (let i = 0; i < slots; i++) {
        const clock = fileClock(shape, files, i, shape.revision);
        if (!existsAt(clock, shape.revision)) continue;
        const file = fileAt(shape, i, driveIds, clock);
        yield overlay.files.size === 0 ? file : overlayFile(file, overlay.files.get(file.id), i.toString(36));
      }
    },
    sharedDrives: async function* () {
      if (shape.revision > 0) driveCounts ??= countDriveFiles();
      for (let d = 0; d < shape.driveCount; d++) {
        const drive = driveAt(shape, d);
        yield driveCounts ? { ...drive, fileCount: driveCounts[d] ?? 0 } : drive;
      }
    },
    groups: async function* () {
      await readable();
      yield* demoGroups(shape);
    },
    appGrants: async function* () {
      const { revokedGrants, addedGrants } = await loadOverlay(opts.overlay);
      const slots = slotsAt(grantGrowth(shape), shape.revision);
      for (let g = 0; g < slots; g++) {
        if (shape.revision >= grantLife(shape, apps, g).end) continue;
        const grant = grantAt(shape, apps, g);
        if (!revokedGrants.has(grant.id)) yield grant;
      }
      for (const grant of addedGrants) if (!revokedGrants.has(grant.id)) yield grant;
    },
    activity: (since: Date) => withOverlayActivity(activityEvents(shape, apps, since), readable, since),
    tenantSettings: async () => demoTenantSettings(shape),
    // The sandbox is granted everything a real tenant could grant.
    checkAccess: async () =>
      accessRequirementsOf(shape.type).map((r) => ({
        ...r,
        granted: true,
      })),
    coverageGaps: () => [],
    changeFeed: demoChangeFeed(shape, opts.seed, driveIds, opts.overlay),
  };
}

/** The generated activity, then the events the sandbox's scenarios added (after `since`). */
async function* withOverlayActivity(
  generated: AsyncIterable<TActivityEvent>,
  readable: () => Promise<TOverlay>,
  since: Date,
): AsyncGenerator<TActivityEvent> {
  const { activity } = await readable();
  yield* generated;
  const after = since.toISOString();
  for (const event of activity) if (event.at > after) yield event;
}
