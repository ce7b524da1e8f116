import {
  createSourceAdapter,
  sourceInputOf,
  type TDemoOverlayStore,
  type TSourceAdapter,
} from "@posture/connectors";
import { demoOverlayStore, type Db } from "@posture/db";
import type { TRuntime } from "@posture/platform";
import type { TConnectorRow } from "./deps";

/**
 * The source a connector reads: its credentials decrypted, its config and the runtime's endpoints;
 * a demo connector reads through its sandbox overlay (remediation's writes to the demo tenant),
 * loaded here, before the scan opens a transaction: on the embedded database (one connection) a
 * read of the overlay from inside the snapshot's transaction would wait for it forever.
 */
export async function defaultAdapterFor(
  connector: TConnectorRow,
  runtime: TRuntime,
  db: Db,
): Promise<TSourceAdapter> {
  return createSourceAdapter({
    ...sourceInputOf(connector, runtime),
    ...(connector.mode === "demo"
      ? { demoOverlay: await loadedOverlay(demoOverlayStore(db, connector.id)) }
      : {}),
  });
}

/** The overlay as it stands now, read once; a scan only reads it (writes go to the store itself). */
async function loadedOverlay(store: TDemoOverlayStore): Promise<TDemoOverlayStore> {
  const entries = await store.load();
  return { ...store, load: async () => entries };
}
