import { eq } from "drizzle-orm";
import { organizations } from "@posture/db";
import type { TJobQueue } from "@posture/platform";
import { refreshDrift, type TDriftDeps } from "./drift";
import { refreshRadar } from "./radar";

export const PARTNER_CLIENT_JOB = "partner.client.refresh";

/** One job per client at a time; a second scan finishing meanwhile waits a moment and coalesces. */
export const partnerClientJobId = (clientOrgId: string) => `partner-client-${clientOrgId}`;

/**
 * Queues a client's refresh, one per client at a time. Losing the queueing loses little: the
 * partner's drift and radar sweeps catch up, so a failed enqueue never fails the caller.
 */
export async function queueClientRefresh(
  jobs: TJobQueue,
  clientOrgId: string,
  opts: { delayMs?: number } = {},
): Promise<void> {
  await jobs
    .enqueue(PARTNER_CLIENT_JOB, { clientOrgId }, { jobId: partnerClientJobId(clientOrgId), ...opts })
    .catch(() => undefined);
}

/**
 * After a scan of a managed client (queued by the scan job), or a change of its consent (the
 * access service): its drift from the standards it is held to, then a pass of its partner's
 * cross-client radar requested. Both are idempotent recomputations.
 */
export async function refreshClient(deps: TDriftDeps, clientOrgId: string): Promise<void> {
  const [org] = await deps.db
    .select({ partnerOrgId: organizations.managedByOrgId })
    .from(organizations)
    .where(eq(organizations.id, clientOrgId));
  if (!org?.partnerOrgId) return;
  await refreshDrift(deps, clientOrgId);
  await refreshRadar(deps, org.partnerOrgId);
}
