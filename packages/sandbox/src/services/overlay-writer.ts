import { createHash } from "node:crypto";
import { demoOverlayStore, type Db } from "@posture/db";

/** A demo source's overlay as a scenario writes it: each entry stamped past every earlier one. */
export type TOverlayWriter = {
  store: ReturnType<typeof demoOverlayStore>;
  put: (key: string, change: Record<string, unknown>) => Promise<void>;
};

export async function overlayWriter(db: Db, connectorId: string): Promise<TOverlayWriter> {
  const store = demoOverlayStore(db, connectorId);
  let version = 0;
  for (const change of (await store.load()).values())
    if (typeof change.v === "number") version = Math.max(version, change.v);
  return {
    store,
    // Each entry's version is past every earlier one and at least the clock, as the demo writer's.
    put: (key, change) => {
      version = Math.max(version + 1, Date.now());
      return store.put(key, { ...change, v: version });
    },
  };
}

/** A choice among `n` that differs from run to run but is reproducible from the run id. */
export const pick = (runId: string, n: number) =>
  createHash("sha256").update(runId).digest().readUInt32BE(0) % n;
export const tagOf = (runId: string) => createHash("sha256").update(runId).digest("hex").slice(0, 8);
