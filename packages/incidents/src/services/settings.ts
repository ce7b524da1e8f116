import { eq } from "drizzle-orm";
import { organizations, type Db } from "@posture/db";
import { AppError, audit, type TActor } from "@posture/platform";
import { REGULATIONS, type TRegulation } from "./deadlines";

/** Which regulatory clocks the organization's incidents carry: every regulation, on unless turned off. */
export type TIncidentSettings = { regulations: Record<TRegulation, boolean> };

const shown = (off: readonly string[]): TIncidentSettings => ({
  regulations: Object.fromEntries(REGULATIONS.map((r) => [r, !off.includes(r)])) as Record<
    TRegulation,
    boolean
  >,
});

/** GET /incident-settings. */
export async function getIncidentSettings(db: Db, input: { orgId: string }): Promise<TIncidentSettings> {
  const [row] = await db
    .select({ off: organizations.incidentRegulationsOff })
    .from(organizations)
    .where(eq(organizations.id, input.orgId));
  if (!row) throw new AppError("not_found", "Organization not found");
  return shown(row.off);
}

/**
 * PATCH /incident-settings: the regulations given turn on or off; the change and its audit row
 * (INCIDENT_SETTINGS_CHANGED, each regulation's from/to) commit together. A clock turned off
 * disappears from every incident's `deadlines` and report, and its approaching notice is not sent.
 */
export async function updateIncidentSettings(
  db: Db,
  scope: { orgId: string; actor: TActor },
  patch: { regulations?: Partial<Record<TRegulation, boolean>> },
): Promise<TIncidentSettings> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select({ off: organizations.incidentRegulationsOff })
      .from(organizations)
      .where(eq(organizations.id, scope.orgId))
      .for("update");
    if (!row) throw new AppError("not_found", "Organization not found");
    const before = shown(row.off).regulations;
    const after = { ...before, ...patch.regulations };
    const changed = REGULATIONS.filter((r) => before[r] !== after[r]);
    if (changed.length === 0) return shown(row.off);
    const off = REGULATIONS.filter((r) => !after[r]);
    await tx
      .update(organizations)
      .set({ incidentRegulationsOff: off })
      .where(eq(organizations.id, scope.orgId));
    await audit(tx, scope, {
      action: "INCIDENT_SETTINGS_CHANGED",
      target: scope.orgId,
      metadata: Object.fromEntries(changed.map((r) => [r, { from: before[r], to: after[r] }])),
    });
    return shown(off);
  });
}
