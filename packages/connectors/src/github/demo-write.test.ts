import { describe, expect, it } from "vitest";
import { collect } from "../../../fakes/src/adapter-harness";
import type { TDemoOverlayStore } from "../write";
import { createGithubDemoAdapter } from "./demo";
import { createGithubDemoWriter } from "./demo-write";

// The demo organization's deploy keys under the sandbox's writes, as GitHub does them: a key
// deleted, its public key added back on undo under a new id, an undo retried adding nothing.

function memoryOverlay(): TDemoOverlayStore & { entries: Map<string, Record<string, unknown>> } {
  const entries = new Map<string, Record<string, unknown>>();
  return {
    entries,
    load: async () => new Map(entries),
    put: async (key, change) => void entries.set(key, change),
    remove: async (key) => void entries.delete(key),
  };
}

const PAYMENTS = {
  id: "northwind-labs/payments-api",
  driveId: null,
  ownerEmail: "owners@northwind-labs.github",
};

describe("the demo GitHub writer's deploy keys", () => {
  it("deletes a writable key, and adds its public key back under a new id", async () => {
    const overlay = memoryOverlay();
    const writer = createGithubDemoWriter({ overlay });
    const adapter = createGithubDemoAdapter({ overlay });
    const keysOf = async () =>
      (await collect(adapter.files())).find((f) => f.id === PAYMENTS.id)?.repository?.deployKeys;
    expect(writer.reversibility("delete_deploy_key").reversible).toBe(true);
    expect(await keysOf()).toEqual([{ id: "101", title: "ci-deploy", readOnly: false }]);

    const before = await writer.readDeployKey?.(PAYMENTS, "101");
    expect(before).toEqual({
      id: "101",
      title: "ci-deploy",
      readOnly: false,
      key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5demo/northwind-labs/payments-api/101",
    });
    expect(await writer.deleteDeployKey?.(PAYMENTS, "101")).toBe("applied");
    expect(await keysOf()).toEqual([]);
    expect(await writer.deleteDeployKey?.(PAYMENTS, "101")).toBe("already_gone");
    expect(await writer.readDeployKey?.(PAYMENTS, "101")).toBeNull();

    if (!before) throw new Error("no pre-image");
    const restored = await writer.restoreDeployKey?.(PAYMENTS, before);
    expect(restored?.id).toMatch(/^101-\d+$/);
    expect(await writer.restoreDeployKey?.(PAYMENTS, before)).toEqual(restored);
    expect(await keysOf()).toEqual([{ id: restored?.id, title: "ci-deploy", readOnly: false }]);
    // The added-back key deleted again goes with its entry: only the generated key's removal stays.
    expect(await writer.deleteDeployKey?.(PAYMENTS, restored?.id ?? "")).toBe("applied");
    expect([...overlay.entries.keys()]).toEqual(["dkey:northwind-labs/payments-api:101"]);
    await expect(
      writer.deleteDeployKey?.({ ...PAYMENTS, id: "northwind-labs/nothing" }, "101"),
    ).rejects.toMatchObject({ status: 404 });
  });
});
