import type { Db } from "@posture/db";
import type { TJobQueue, TLogger } from "@posture/platform";
import { emitEvent } from "@posture/webhooks";
import type { TNewAnomaly } from "./refresh";

/**
 * The one place anomalies are announced: after the refresh committed, one `anomaly.detected` per
 * anomaly new to it (a recomputation that only updates an anomaly stays silent).
 */
export async function announceAnomalies(
  deps: { db: Db; jobs: TJobQueue; log: TLogger; publicUrl: string },
  input: { orgId: string; anomalies: TNewAnomaly[] },
): Promise<void> {
  const base = deps.publicUrl.replace(/\/$/, "");
  for (const a of input.anomalies) {
    try {
      await emitEvent(deps.db, deps.jobs, {
        orgId: input.orgId,
        type: "anomaly.detected",
        data: {
          anomalyId: a.id,
          principal: a.principal,
          type: a.type,
          severity: a.severity,
          confidence: a.confidence,
          at: a.at.toISOString(),
          link: `${base}/api/behavior/anomalies?type=${a.type}`,
        },
      });
    } catch (err) {
      deps.log.error({ err, anomalyId: a.id }, "announcing an anomaly failed");
    }
  }
}
