import type { TSourceAdapter } from "../types";
import { activityEvents } from "./activity";
import { appsOf, grantAt } from "./apps";
import { driveAt, driveIdAt } from "./drives";
import { fileAt } from "./files";
import { demoTenantSettings } from "./settings";
import { accessRequirementsOf } from "../access";
import { shapeOf, type TShapeInput } from "./shape";
import { userAt } from "./users";

/** Seed, flavour, size, revision and clock: exactly what the workspace's shape is derived from. */
export type TDemoOptions = TShapeInput;

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
 * A synthetic tenant, deterministic in (seed, type, fileCount, revision, the hour of `now`): every item is
 * generated from its own index on demand, so any size streams in constant memory. A higher
 * `revision` changes a small deterministic subset (exposures fixed and added, users enabling MFA)
 * so rescans find both new and resolved findings.
 */
export function createDemoAdapter(opts: TDemoOptions): TSourceAdapter {
  const shape = shapeOf(opts);
  const driveIds = Array.from({ length: shape.driveCount }, (_, d) => driveIdAt(shape, d));
  const apps = appsOf(shape);

  return {
    workspace: async () => ({ domain: shape.domain, internalDomains: [...shape.internalDomains] }),
    users: async function* () {
      for (let j = 0; j < shape.userCount; j++) yield userAt(shape, j);
    },
    files: async function* () {
      for (let i = 0; i < shape.fileCount; i++) yield fileAt(shape, i, driveIds);
    },
    sharedDrives: async function* () {
      for (let d = 0; d < shape.driveCount; d++) yield driveAt(shape, d);
    },
    appGrants: async function* () {
      for (let g = 0; g < shape.grantCount; g++) yield grantAt(shape, apps, g);
    },
    activity: (since: Date) => activityEvents(shape, apps, since),
    tenantSettings: async () => demoTenantSettings(shape),
    // The sandbox is granted everything a real tenant could grant.
    checkAccess: async () =>
      accessRequirementsOf(shape.type).map((r) => ({
        ...r,
        granted: true,
      })),
    coverageGaps: () => [],
  };
}
