import { describe, expect, it } from "vitest";
import { collect } from "../../../fakes/src/adapter-harness";
import type { TAppGrant, TChangeCursor, TFileChange, TSourceFile } from "../types";
import { SourceWriteError, type TDemoOverlayStore, type TWriteFile } from "../write";
import { createDemoAdapter, type TDemoOptions } from "./index";
import { createDemoWriter } from "./write";

// The demo writer against the synthetic tenant: each change is an overlay entry the adapter lays
// over every read (full and change feed), and undo gives back exactly the generated tenant.

const EPOCH = new Date("2026-03-02T09:00:00.000Z");

/** The overlay as the DB keeps it, in memory: load, put, remove. */
function memoryOverlay(): TDemoOverlayStore & { entries: Map<string, Record<string, unknown>> } {
  const entries = new Map<string, Record<string, unknown>>();
  return {
    entries,
    load: async () => new Map([...entries].map(([k, v]) => [k, structuredClone(v)])),
    put: async (key, change) => void entries.set(key, structuredClone(change)),
    remove: async (key) => void entries.delete(key),
  };
}

function sandbox(opts: Omit<TDemoOptions, "overlay">) {
  const overlay = memoryOverlay();
  const withOverlay = { ...opts, overlay };
  return {
    overlay,
    writer: createDemoWriter(withOverlay),
    adapter: () => createDemoAdapter(withOverlay),
    files: async () => new Map((await collect(createDemoAdapter(withOverlay).files())).map((f) => [f.id, f])),
    grants: async () => collect(createDemoAdapter(withOverlay).appGrants()),
  };
}

function must<T>(value: T | undefined | null): T {
  if (value === undefined || value === null) throw new Error("expected a value");
  return value;
}

function feedOf(adapter: ReturnType<typeof createDemoAdapter>) {
  return must(adapter.changeFeed);
}

const writeFile = (f: TSourceFile): TWriteFile => ({
  id: f.id,
  driveId: f.driveId,
  ownerEmail: f.ownerEmail,
});
const changed = (changes: TFileChange[]) =>
  changes.flatMap((c) => (c.kind === "file" ? [c.file] : [])).map((f) => f.id);

async function readSince(adapter: ReturnType<typeof createDemoAdapter>, since: TChangeCursor) {
  const read = feedOf(adapter).read(since);
  const changes = await collect(read.changes);
  return { changes, cursor: read.cursor() };
}

describe.each<[string, Omit<TDemoOptions, "overlay">]>([
  ["Google", { seed: "write-g", type: "google_workspace", fileCount: 600, epoch: EPOCH }],
  ["Microsoft", { seed: "write-m", type: "microsoft_365", fileCount: 600, epoch: EPOCH }],
])("the %s demo writer", (_name, opts) => {
  it("removes a public link, answers already_gone the second time, and restores it on undo", async () => {
    const s = sandbox(opts);
    const original = await s.files();
    const file = must([...original.values()].find((f) => f.permissions.some((p) => p.type === "anyone")));
    const link = must(file.permissions.find((p) => p.type === "anyone"));

    const image = await s.writer.readPermission(writeFile(file), link.id);
    expect(image).toEqual(link);
    expect(await s.writer.deletePermission(writeFile(file), link.id)).toBe("applied");
    expect(await s.writer.deletePermission(writeFile(file), link.id)).toBe("already_gone");
    expect(await s.writer.readPermission(writeFile(file), link.id)).toBeNull();

    const after = await s.files();
    expect(must(after.get(file.id)).permissions).toEqual(file.permissions.filter((p) => p.id !== link.id));
    // Nothing else changed.
    for (const [id, f] of original) if (id !== file.id) expect(after.get(id)).toEqual(f);

    const restored = await s.writer.restorePermission(writeFile(file), must(image));
    const back = must((await s.files()).get(file.id));
    if (opts.type === "google_workspace") {
      // Drive gives the link back as it was, its id included.
      expect(restored.id).toBe(link.id);
      expect(back).toEqual(file);
    } else {
      // Graph re-creates an anonymous link as a new one: same audience and role, a new id.
      expect(restored.id).not.toBe(link.id);
      // A retry of the same restore makes no second link.
      expect(await s.writer.restorePermission(writeFile(file), must(image))).toEqual(restored);
      const again = must((await s.files()).get(file.id));
      expect(again.permissions.filter((p) => p.type === "anyone")).toHaveLength(1);
      expect(back.permissions.find((p) => p.id === restored.id)).toEqual({ ...link, id: restored.id });
    }
  });

  it("downgrades a permission and puts its role back", async () => {
    const s = sandbox(opts);
    const original = await s.files();
    const file = must(
      [...original.values()].find((f) =>
        f.permissions.some((p) => p.role === "writer" && p.type !== "anyone"),
      ),
    );
    const target = must(file.permissions.find((p) => p.role === "writer" && p.type !== "anyone"));
    expect(await s.writer.updatePermissionRole(writeFile(file), target.id, "reader")).toBe("applied");
    expect(await s.writer.updatePermissionRole(writeFile(file), target.id, "reader")).toBe("already_gone");
    expect(must((await s.files()).get(file.id)).permissions.find((p) => p.id === target.id)?.role).toBe(
      "reader",
    );
    // A downgrade to a role above the one it has now is no raise: compared by rank, not equality.
    expect(await s.writer.updatePermissionRole(writeFile(file), target.id, "writer")).toBe("already_gone");
    expect(await s.writer.updatePermissionRole(writeFile(file), target.id, "commenter")).toBe("already_gone");
    expect(await s.writer.updatePermissionRole(writeFile(file), target.id, "writer", "restore")).toBe(
      "applied",
    );
    expect((await s.files()).get(file.id)).toEqual(file);
  });

  it("refuses to remove an owner, and finds nothing of another file or an unknown id", async () => {
    const s = sandbox(opts);
    const [first, second] = [...(await s.files()).values()];
    const file = must(first);
    const other = must(second);
    const owner = must(file.permissions[0]);
    await expect(s.writer.deletePermission(writeFile(file), owner.id)).rejects.toMatchObject({
      status: 403,
    });
    // A permission id of one file asked of another one: not there.
    expect(await s.writer.readPermission(writeFile(other), owner.id)).toBeNull();
    expect(await s.writer.deletePermission(writeFile(other), owner.id)).toBe("already_gone");
    expect(await s.writer.deletePermission(writeFile(file), "anyoneWithLink")).toBe("already_gone");
    expect(s.overlay.entries.size).toBe(0);
  });

  it("revokes an app grant; only Microsoft can grant it back", async () => {
    const s = sandbox(opts);
    const grants = await s.grants();
    const grant: TAppGrant = must(grants[grants.length - 1]);
    const target = { id: grant.id, clientId: grant.clientId, userEmail: grant.userEmail };
    const image = await s.writer.readGrant(target);
    expect(image?.id).toBe(grant.id);
    expect(await s.writer.revokeGrant(target)).toBe("applied");
    expect(await s.writer.revokeGrant(target)).toBe("already_gone");
    expect(await s.writer.readGrant(target)).toBeNull();
    expect((await s.grants()).map((g) => g.id)).toEqual(grants.filter((g) => g !== grant).map((g) => g.id));
    expect(await s.writer.revokeGrant({ ...target, id: "grant-zzzzzz" })).toBe("already_gone");

    if (opts.type === "google_workspace") {
      expect(s.writer.restoreGrant).toBeUndefined();
      expect(s.writer.reversibility("revoke_oauth_grant")).toMatchObject({ reversible: false });
    } else {
      expect(s.writer.reversibility("revoke_oauth_grant")).toEqual({ reversible: true });
      expect(await must(s.writer.restoreGrant)(must(image))).toEqual({ id: grant.id });
      expect(await s.grants()).toEqual(grants);
    }
  });

  it("says what its real source could not put back", () => {
    const s = sandbox(opts);
    const link = { id: "x-a", type: "anyone" as const, role: "reader" as const };
    if (opts.type === "google_workspace") {
      expect(s.writer.reversibility("remove_public_link", link)).toEqual({ reversible: true });
      expect(s.writer.reversibility("transfer_ownership")).toEqual({ reversible: true });
    } else {
      expect(s.writer.reversibility("remove_public_link", link)).toMatchObject({ reversible: false });
      expect(s.writer.reversibility("transfer_ownership")).toMatchObject({ reversible: false });
    }
    expect(s.writer.reversibility("remove_external_user")).toEqual({ reversible: true });
    expect(s.writer.requirements()).toEqual([]);
  });

  it("reports each written file in the change feed, as the full read has it, and agrees after undo", async () => {
    const s = sandbox(opts);
    const start = await feedOf(s.adapter()).start();
    expect(start.feeds.overlay).toBe("0");
    const files = await s.files();
    const file = must([...files.values()].find((f) => f.permissions.some((p) => p.type === "anyone")));
    const link = must(file.permissions.find((p) => p.type === "anyone"));
    const image = must(await s.writer.readPermission(writeFile(file), link.id));
    await s.writer.deletePermission(writeFile(file), link.id);

    const applied = await readSince(s.adapter(), start);
    expect(applied.changes).toEqual([{ kind: "file", file: (await s.files()).get(file.id) }]);
    expect(Number(applied.cursor.feeds.overlay)).toBeGreaterThan(0);

    await s.writer.restorePermission(writeFile(file), image);
    const undone = await readSince(s.adapter(), applied.cursor);
    expect(changed(undone.changes)).toEqual([file.id]);
    expect(undone.changes[0]).toEqual({ kind: "file", file: (await s.files()).get(file.id) });
  });
});

describe("ownership transfer in the Google sandbox", () => {
  const opts: Omit<TDemoOptions, "overlay"> = {
    seed: "write-owner",
    type: "google_workspace",
    fileCount: 400,
    epoch: EPOCH,
  };

  it("moves a My Drive file to an internal user, the previous owner keeps writer, and moves it back", async () => {
    const s = sandbox(opts);
    const original = await s.files();
    const file = must([...original.values()].find((f) => f.driveId === null));
    const to = must([...original.values()].map((f) => f.ownerEmail).find((e) => e !== file.ownerEmail));
    expect(await s.writer.transferOwnership(writeFile(file), to)).toBe("applied");
    expect(await s.writer.transferOwnership(writeFile(file), to)).toBe("already_gone");
    const moved = must((await s.files()).get(file.id));
    expect(moved.ownerEmail).toBe(to);
    expect(moved.permissions.find((p) => p.role === "owner")?.emailAddress).toBe(to);
    expect(moved.permissions).toContainEqual(
      expect.objectContaining({ role: "writer", emailAddress: file.ownerEmail }),
    );
    // Undo: transferred back to the previous owner, the file is as generated.
    expect(await s.writer.transferOwnership({ ...writeFile(file), ownerEmail: to }, file.ownerEmail)).toBe(
      "applied",
    );
    expect((await s.files()).get(file.id)).toEqual(file);
  });

  it("refuses a shared drive's file, an outside owner, and answers already_gone for a missing file", async () => {
    const s = sandbox(opts);
    const files = [...(await s.files()).values()];
    const shared = must(files.find((f) => f.driveId !== null));
    const mine = must(files.find((f) => f.driveId === null));
    await expect(s.writer.transferOwnership(writeFile(shared), mine.ownerEmail)).rejects.toMatchObject({
      status: 400,
      code: "unsupported",
    });
    const outside = s.writer.transferOwnership(writeFile(mine), "someone@gmail.com");
    await expect(outside).rejects.toBeInstanceOf(SourceWriteError);
    await expect(outside).rejects.toMatchObject({ status: 400 });
    expect(
      await s.writer.transferOwnership({ ...writeFile(mine), id: "1nosuchfile" }, must(files[1]).ownerEmail),
    ).toBe("already_gone");
  });

  it("is unsupported in the Microsoft sandbox, as OneDrive has no ownership transfer", async () => {
    const s = sandbox({ ...opts, type: "microsoft_365" });
    const file = must([...(await s.files()).values()].find((f) => f.driveId === null));
    await expect(s.writer.transferOwnership(writeFile(file), file.ownerEmail)).rejects.toMatchObject({
      status: 400,
      code: "unsupported",
    });
  });
});

describe("the overlay and the tenant's revisions", () => {
  const opts: Omit<TDemoOptions, "overlay"> = {
    seed: "write-revisions",
    type: "google_workspace",
    fileCount: 900,
    epoch: EPOCH,
  };

  it("an incremental read across revisions and writes turns the old full read into the new one", async () => {
    const s = sandbox(opts);
    const before = await s.files();
    const since = await feedOf(s.adapter()).start();
    // Remove every public link at revision 0, then let the tenant live 5 days.
    for (const f of before.values())
      for (const p of f.permissions.filter((p) => p.type === "anyone"))
        expect(await s.writer.deletePermission(writeFile(f), p.id)).toBe("applied");
    const later = { ...opts, revision: 5, overlay: s.overlay };
    const read = feedOf(createDemoAdapter(later)).read(since);
    const state = new Map(before);
    for await (const c of read.changes) {
      if (c.kind === "file") state.set(c.file.id, c.file);
      else if (c.kind === "removed") state.delete(c.fileId);
    }
    const after = new Map((await collect(createDemoAdapter(later).files())).map((f) => [f.id, f]));
    expect(new Map([...state].sort())).toEqual(new Map([...after].sort()));
    // Removed links stay removed whatever the tenant does later with the same permission.
    for (const f of before.values())
      for (const p of f.permissions.filter((p) => p.type === "anyone"))
        expect(after.get(f.id)?.permissions.some((q) => q.id === p.id) ?? false).toBe(false);
  });
});
