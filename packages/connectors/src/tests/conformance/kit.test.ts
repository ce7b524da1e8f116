import { describe, expect, it } from "vitest";
import type { TSourceFile } from "../../types";
import { applyChanges } from "./kit";

// The store's reading of one incremental read, as the change-feed check applies it.

const file = (id: string, over: Partial<TSourceFile> = {}): TSourceFile => ({
  id,
  name: id,
  mimeType: "text/plain",
  ownerEmail: "alice@acme.test",
  driveId: null,
  permissions: [],
  modifiedAt: "2025-06-01T00:00:00.000Z",
  sizeBytes: 1,
  ...over,
});

const stored = new Map(
  [
    file("a"),
    file("b"),
    file("c", { ownerEmail: "bob@acme.test" }),
    file("d", { driveId: "drv-1", ownerEmail: "bob@acme.test" }),
    file("e", { driveId: "drv-1" }),
  ].map((f) => [f.id, f]),
);

describe("applyChanges", () => {
  it("keeps the last report of a file, adds new ones and drops removed ones", () => {
    const out = applyChanges(stored, [
      { kind: "file", file: file("a", { name: "first" }) },
      { kind: "file", file: file("a", { name: "last" }) },
      { kind: "file", file: file("new") },
      { kind: "removed", fileId: "b" },
    ]);
    expect([...out.keys()].sort()).toEqual(["a", "c", "d", "e", "new"]);
    expect(out.get("a")?.name).toBe("last");
    expect(stored.get("a")?.name).toBe("a");
  });

  it("drops a gone owner's personal files and a gone drive's files, except those this read reported", () => {
    const out = applyChanges(stored, [
      { kind: "ownerGone", ownerEmail: "bob@acme.test" },
      { kind: "driveGone", driveId: "drv-1" },
      { kind: "file", file: file("e", { driveId: "drv-1", name: "moved back" }) },
    ]);
    // c: bob's personal file, gone; d: bob's but in drv-1, gone with the drive; e: reported, kept.
    expect([...out.keys()].sort()).toEqual(["a", "b", "e"]);
    expect(out.get("e")?.name).toBe("moved back");
  });
});
