import { describe, expect, it } from "vitest";
import { ALL_ORGANIZATIONS, LocalDataEpochs } from "./data-epochs";

describe("LocalDataEpochs (embedded mode)", () => {
  it("moves the epoch at a write's start and end, and hides it while the write runs", async () => {
    const epochs = new LocalDataEpochs();
    const now = Date.now();
    const before = epochs.read("org_a", now);
    expect(before).not.toBeNull();
    expect(epochs.read("org_a", now)).toBe(before);
    await epochs.begin(["org_a"], "w1", now + 30_000);
    expect(epochs.read("org_a", now)).toBeNull();
    expect(epochs.read("org_b", now)).not.toBeNull();
    await epochs.end(["org_a"], "w1");
    const after = epochs.read("org_a", now);
    expect(after).not.toBeNull();
    expect(after).not.toBe(before);
  });

  it("lets an expired mark go (a writer that died) and every organization's write hide them all", async () => {
    const epochs = new LocalDataEpochs();
    const now = Date.now();
    await epochs.begin(["org_a"], "dead", now + 1_000);
    expect(epochs.read("org_a", now)).toBeNull();
    expect(epochs.read("org_a", now + 1_000)).not.toBeNull();
    await epochs.begin([ALL_ORGANIZATIONS], "sweep", now + 30_000);
    expect(epochs.read("org_b", now)).toBeNull();
    await epochs.end([ALL_ORGANIZATIONS], "sweep");
    expect(epochs.read("org_b", now)).not.toBeNull();
  });
});
