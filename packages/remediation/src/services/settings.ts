import { eq } from "drizzle-orm";
import { organizations, type Db } from "@posture/db";
import { audit, AppError, type TJobQueue } from "@posture/platform";
import { withEvents } from "@posture/webhooks";
import { personOf, requireOwnerInPerson, type TFourEyesScope } from "./four-eyes";

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

const KEYS = ["fourEyes", "preventionChangeCap", "partnerMayApprove"] as const;

/** The changes that loosen a control: four eyes off, more changes per scan, partners approving. */
export function loosened(before: TRemediationSettings, after: TRemediationSettings): string[] {
  const out: string[] = [];
  if (before.fourEyes && !after.fourEyes) out.push("turn four eyes off");
  if (after.preventionChangeCap > before.preventionChangeCap) out.push("raise preventionChangeCap");
  if (!before.partnerMayApprove && after.partnerMayApprove) out.push("let the partner approve");
  return out;
}

/** GET /remediation-settings. */
export async function getSettings(db: Db, input: { orgId: string }): Promise<TRemediationSettings> {
  const [row] = await db.select(columns).from(organizations).where(eq(organizations.id, input.orgId));
  if (!row) throw new AppError("not_found", "Organization not found");
  return row;
}

/**
 * PATCH /remediation-settings: the fields given. Tightening is always allowed to an ADMIN+; with
 * four eyes on, a loosening (four eyes off, a higher cap, partner approval on) only to an OWNER
 * signed in (403 owner_required / session_required), so no ADMIN turns four eyes off, acts alone
 * and turns it back on. The change, its audit row and `remediation.settings.changed` (with
 * `weakened`) commit together.
 */
export async function updateSettings(
  db: Db,
  scope: TFourEyesScope,
  patch: Partial<TRemediationSettings>,
  deps: { jobs: TJobQueue; publicUrl: string },
): Promise<TRemediationSettings> {
  return withEvents(db, deps.jobs, async (tx, emit) => {
    const [before] = await tx
      .select(columns)
      .from(organizations)
      .where(eq(organizations.id, scope.orgId))
      .for("update");
    if (!before) throw new AppError("not_found", "Organization not found");
    const after = { ...before, ...patch };
    const changed = KEYS.filter((k) => before[k] !== after[k]);
    if (changed.length === 0) return before;
    const weakening = loosened(before, after);
    if (before.fourEyes && weakening.length > 0) requireOwnerInPerson(scope, weakening.join(" or "));
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
      metadata: {
        ...Object.fromEntries(changed.map((k) => [k, { from: before[k], to: after[k] }])),
        weakened: weakening.length > 0,
        role: scope.role,
      },
    });
    await emit({
      orgId: scope.orgId,
      type: "remediation.settings.changed",
      data: {
        previous: before,
        current: after,
        changed,
        weakened: weakening.length > 0,
        changedBy: personOf(scope),
        link: `${deps.publicUrl.replace(/\/+$/, "")}/api/remediation-settings`,
      },
    });
    return after;
  });
}
