import { createSourceWriter, sourceInputOf, type TSourceWriter } from "@posture/connectors";
import { demoOverlayStore, type connectors, type Db } from "@posture/db";
import type { TRuntime } from "@posture/platform";

export type TConnectorRow = typeof connectors.$inferSelect;

/**
 * The writer a connector's source is changed through: its credentials decrypted, its config, the
 * runtime's endpoints and (demo mode) the synthetic tenant's overlay in `demo_overlays`.
 */
export function writerFor(db: Db, connector: TConnectorRow, runtime: TRuntime): TSourceWriter {
  return createSourceWriter({
    ...sourceInputOf(connector, runtime),
    ...(connector.mode === "demo" ? { demoOverlay: demoOverlayStore(db, connector.id) } : {}),
  });
}

export type TWriterFor = (db: Db, connector: TConnectorRow, runtime: TRuntime) => TSourceWriter;
