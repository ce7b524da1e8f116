import { createSourceAdapter, type TSourceAdapter } from "@posture/connectors";
import { demoOverlayStore, type Db } from "@posture/db";
import { decryptSecret, type TRuntime } from "@posture/platform";
import type { TConnectorRow } from "./deps";

/**
 * The source a connector reads: its credentials decrypted, its config and the runtime's endpoints;
 * a demo connector reads through its sandbox overlay (remediation's writes to the demo tenant).
 */
export function defaultAdapterFor(connector: TConnectorRow, runtime: TRuntime, db: Db): TSourceAdapter {
  const credentials = connector.credentialsEnc
    ? (JSON.parse(decryptSecret(runtime.encryptionKey, connector.credentialsEnc)) as unknown)
    : undefined;
  return createSourceAdapter({
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
