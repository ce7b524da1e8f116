import { createSourceWriter, type TSourceWriter } from "@posture/connectors";
import { demoOverlayStore, type connectors, type Db } from "@posture/db";
import { decryptSecret, type TRuntime } from "@posture/platform";

export type TConnectorRow = typeof connectors.$inferSelect;

/**
 * The writer a connector's source is changed through: its credentials decrypted, its config, the
 * runtime's endpoints and (demo mode) the synthetic tenant's overlay in `demo_overlays`.
 */
export function writerFor(db: Db, connector: TConnectorRow, runtime: TRuntime): TSourceWriter {
  const credentials = connector.credentialsEnc
    ? (JSON.parse(decryptSecret(runtime.encryptionKey, connector.credentialsEnc)) as unknown)
    : undefined;
  return createSourceWriter({
    type: connector.type,
    mode: connector.mode,
    connectorId: connector.id,
    createdAt: connector.createdAt,
    credentials,
    config: connector.config,
    ...(runtime.sourceEndpoints ? { endpoints: runtime.sourceEndpoints } : {}),
    ...(connector.mode === "demo" ? { demoOverlay: demoOverlayStore(db, connector.id) } : {}),
  });
}

export type TWriterFor = (db: Db, connector: TConnectorRow, runtime: TRuntime) => TSourceWriter;
