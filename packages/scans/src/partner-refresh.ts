import { eq } from "drizzle-orm";
import { organizations } from "@posture/db";
import { queueClientRefresh } from "@posture/partner";
import type { TScanDeps } from "./deps";

/**
 * A managed client's scan changes what its partner sees across clients: queue the partner's
 * refresh of this client (drift from its standards, then the radar). A short delay coalesces the
 * scans of a client's several sources. Losing the queueing loses nothing for long: the partner's
 * periodic sweep recomputes every client.
 */
export async function queuePartnerRefresh(
  deps: Pick<TScanDeps, "db" | "jobs">,
  orgId: string,
): Promise<void> {
  const [org] = await deps.db
    .select({ partner: organizations.managedByOrgId })
    .from(organizations)
    .where(eq(organizations.id, orgId));
  if (!org?.partner) return;
  await queueClientRefresh(deps.jobs, orgId, { delayMs: 1_000 });
}
