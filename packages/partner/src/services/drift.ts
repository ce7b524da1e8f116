import type { Db } from "@posture/db";
import type { TJobQueue } from "@posture/platform";

export type TDriftDeps = { db: Db; jobs: TJobQueue; runtime: { publicUrl: string } };

/** Recomputes one client's drift from every standard assigned to it (issue 17, item 3; filled in there). */
export async function refreshDrift(_deps: TDriftDeps, _clientOrgId: string): Promise<void> {}
