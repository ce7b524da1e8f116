import type { Db } from "@posture/db";
import type { TJobQueue } from "@posture/platform";

export type TRadarDeps = { db: Db; jobs: TJobQueue; runtime: { publicUrl: string } };

/** Recomputes one partner's cross-client campaigns (issue 17, item 4; filled in there). */
export async function refreshRadar(_deps: TRadarDeps, _partnerOrgId: string): Promise<void> {}
