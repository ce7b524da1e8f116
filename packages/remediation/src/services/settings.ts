import { eq } from "drizzle-orm";
import { organizations, type Db } from "@posture/db";
import { audit, AppError, type TActor } from "@posture/platform";

export type TRemediationSettings = {
  fourEyes: boolean;
  preventionChangeCap: number;
  partnerMayApprove: boolean;
};

const columns = {
  fourEyes: organizations.remediationFourEyes,
  preventionChangeCap: organizations.preventionChangeCap,
  partnerMayApprove: organizations.partnerMayApprove,
};

/** GET /remediation-settings. */
export async function getSettings(db: Db, input: { orgId: string }): Promise<TRemediationSettings> {
  const [row] = await db.select(columns).from(organizations).where(eq(organizations.id, input.orgId));
  if (!row) throw new AppError("not_found", "Organization not found");
  return row;
}

/** PATCH /remediation-settings: the fields given; the change and its audit row commit together. */
export async function updateSettings(
  db: Db,
  scope: { orgId: string; actor: TActor },
  patch: Partial<TRemediationSettings>,
): Promise<TRemediationSettings> {
  return db.transaction(async (tx) => {
    const [before] = await tx
      .select(columns)
      .from(organizations)
      .where(eq(organizations.id, scope.orgId))
      .for("update");
    if (!before) throw new AppError("not_found", "Organization not found");
    const after = { ...before, ...patch };
    const changes = (Object.keys(columns) as Array<keyof TRemediationSettings>).filter(
      (k) => before[k] !== after[k],
    );
    if (changes.length === 0) return before;
    await tx
      .update(organizations)
      .set({
        remediationFourEyes: after.fourEyes,
        preventionChangeCap: after.preventionChangeCap,
        partnerMayApprove: after.partnerMayApprove,
      })
      .where(eq(organizations.id, scope.orgId));
    await audit(tx, scope, {
      action: "REMEDIATION_SETTINGS_CHANGED",
      target: scope.orgId,
      metadata: Object.fromEntries(changes.map((k) => [k, { from: before[k], to: after[k] }])),
    });
    return after;
  });
}
