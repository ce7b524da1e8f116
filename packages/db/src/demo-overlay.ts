import { and, eq } from "drizzle-orm";
import type { Db } from "./client";
import { demoOverlays } from "./schema/remediations";

/**
 * A demo connector's sandbox writes, kept in `demo_overlays` (structurally the connectors'
 * TDemoOverlayStore): the demo writer puts and removes entries, the demo adapter reads them all.
 */
export function demoOverlayStore(db: Db, connectorId: string) {
  return {
    load: async (): Promise<Map<string, Record<string, unknown>>> => {
      const rows = await db
        .select({ key: demoOverlays.key, change: demoOverlays.change })
        .from(demoOverlays)
        .where(eq(demoOverlays.connectorId, connectorId));
      return new Map(rows.map((r) => [r.key, r.change]));
    },
    put: async (key: string, change: Record<string, unknown>): Promise<void> => {
      await db
        .insert(demoOverlays)
        .values({ connectorId, key, change })
        .onConflictDoUpdate({ target: [demoOverlays.connectorId, demoOverlays.key], set: { change } });
    },
    remove: async (key: string): Promise<void> => {
      await db
        .delete(demoOverlays)
        .where(and(eq(demoOverlays.connectorId, connectorId), eq(demoOverlays.key, key)));
    },
  };
}
