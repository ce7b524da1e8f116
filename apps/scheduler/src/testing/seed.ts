import { randomBytes } from "node:crypto";
import { connectors, organizations, scans, type Db } from "@posture/db";

/** A business organization with one demo connector of `fileCount` files, as POST /api/connectors leaves it. */
export async function seedDemoConnector(db: Db, fileCount: number) {
  const [org] = await db
    .insert(organizations)
    .values({ name: `Org ${randomBytes(3).toString("hex")}`, plan: "business" })
    .returning();
  if (!org) throw new Error("org insert failed");
  const [connector] = await db
    .insert(connectors)
    .values({
      orgId: org.id,
      type: "google_workspace",
      displayName: "Demo Drive",
      mode: "demo",
      config: { fileCount },
    })
    .returning();
  if (!connector) throw new Error("connector insert failed");
  return { org, connector };
}

/** A QUEUED manual scan row, as requestManualScan creates before it enqueues the job. */
export async function insertQueuedScan(db: Db, connector: typeof connectors.$inferSelect) {
  const [scan] = await db
    .insert(scans)
    .values({
      orgId: connector.orgId,
      connectorId: connector.id,
      connectorName: connector.displayName,
      trigger: "manual",
    })
    .returning();
  if (!scan) throw new Error("scan insert failed");
  return scan;
}

/** Polls `read` until `done` holds of its value, or fails naming what it last saw. */
export async function waitUntil<T>(
  what: string,
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs: number,
  everyMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await read();
  while (!done(last)) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, everyMs));
    last = await read();
  }
  return last;
}
