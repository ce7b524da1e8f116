import { eq } from "drizzle-orm";
import { organizations, type Db } from "@posture/db";
import { AppError, audit, type TActor } from "@posture/platform";

/**
 * What the internal-exposure rules read from the organization. The scan reads it when it starts
 * (packages/scans/src/scan-job.ts), so a change takes effect at the next scan of each connector;
 * the rules' key includes it, so that scan re-judges every file even when incremental.
 */
export type TExposureSettings = { broadGroupThreshold: number };

/** Bounds of `broadGroupThreshold`: a "group" of one is a person; past a million nothing is broad. */
export const BROAD_GROUP_THRESHOLD_MIN = 2;
export const BROAD_GROUP_THRESHOLD_MAX = 1_000_000;

/** GET /exposure/settings. */
export async function getExposureSettings(db: Db, input: { orgId: string }): Promise<TExposureSettings> {
  const [row] = await db
    .select({ broadGroupThreshold: organizations.broadGroupThreshold })
    .from(organizations)
    .where(eq(organizations.id, input.orgId));
  if (!row) throw new AppError("not_found", "Organization not found");
  return row;
}

/**
 * PATCH /exposure/settings: the change and its audit row (EXPOSURE_SETTINGS_CHANGED, from/to)
 * commit together; an unchanged value writes nothing.
 */
export async function updateExposureSettings(
  db: Db,
  input: { orgId: string; actor: TActor; broadGroupThreshold?: number | undefined },
): Promise<TExposureSettings> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select({ broadGroupThreshold: organizations.broadGroupThreshold })
      .from(organizations)
      .where(eq(organizations.id, input.orgId))
      .for("update");
    if (!row) throw new AppError("not_found", "Organization not found");
    const next = input.broadGroupThreshold;
    if (next === undefined || next === row.broadGroupThreshold) return row;
    await tx
      .update(organizations)
      .set({ broadGroupThreshold: next })
      .where(eq(organizations.id, input.orgId));
    await audit(tx, input, {
      action: "EXPOSURE_SETTINGS_CHANGED",
      target: input.orgId,
      metadata: { broadGroupThreshold: { from: row.broadGroupThreshold, to: next } },
    });
    return { broadGroupThreshold: next };
  });
}
