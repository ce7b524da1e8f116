import { afterEach, describe, expect, it } from "vitest";
import type { TPermission, TSourceAdapter, TSourceFile } from "../../types";
import { applyChanges, type TConformanceCheck, type TKitSession, type TSourceKit } from "./kit";

// The conformance suite, written once: every source's adapter and fake must pass it (kits.ts lists
// them; docs/sources/adding-a-source.md says how a new source joins). Each check starts its own
// fake tenant through the kit and reads it only through the product's interfaces (TSourceAdapter,
// TSourceWriter), so what it proves holds for the scan and remediation alike.

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

const idsOf = (files: readonly TSourceFile[]) => files.map((f) => f.id).sort();

async function fullRead(adapter: TSourceAdapter): Promise<Map<string, TSourceFile>> {
  const files = await collect(adapter.files());
  return new Map(files.map((f) => [f.id, f]));
}

const sorted = (files: Iterable<TSourceFile>) => [...files].sort((a, b) => a.id.localeCompare(b.id));

/** A grant as a person sees it: who, what role, what link; not the id the source gave it. */
const grantsOf = (file: TSourceFile | undefined) =>
  (file?.permissions ?? []).map(({ id: _id, ...rest }: TPermission) => JSON.stringify(rest)).sort();

export function describeConformance(kit: TSourceKit): void {
  describe(`${kit.label} conforms to the source kit`, () => {
    const sessions: TKitSession[] = [];
    afterEach(async () => {
      const done = sessions.splice(0);
      await Promise.all(done.map((s) => s.close()));
      for (const s of done) expect(s.refused()).toEqual([]);
    });
    const start = async (resources: number) => {
      const session = await kit.start({ resources });
      sessions.push(session);
      return session;
    };
    /** A check the kit says cannot apply is skipped with its reason in the test's name. */
    const check = (name: TConformanceCheck, title: string, body: () => Promise<void>) => {
      const reason = kit.skip[name];
      if (reason) it.skip(`${title} — not applicable: ${reason}`, body);
      else it(title, body);
    };

    check("paging", "pages: more resources than one page, each read exactly once", async () => {
      const base = await start(0);
      const baseCount = (await collect(base.adapter().files())).length;
      const resources = kit.pageSize * 2 + 5;
      const session = await start(resources);
      const files = await collect(session.adapter().files());
      const ids = idsOf(files);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.length).toBe(baseCount + resources);
      expect(ids).toEqual(expect.arrayContaining(session.seeded));
      expect(session.seeded).toHaveLength(resources);
      // Two pages past the first at least: the padding alone fills more than two pages.
      expect(session.laterPages()).toBeGreaterThanOrEqual(2);
    });

    check("throttling", "rides out a 429 by waiting its Retry-After, then reads everything", async () => {
      const session = await start(kit.pageSize + 3);
      const before = session.requests();
      const expected = idsOf(await collect(session.adapter().files()));
      const unthrottled = session.requests() - before;
      const waitsBefore = session.waits().length;
      session.throttle({ count: 2, retryAfterSec: 7 });
      const files = await collect(session.adapter().files());
      expect(idsOf(files)).toEqual(expected);
      // The same read as before, and the two throttled requests sent again: nothing skipped.
      expect(session.requests() - before - unthrottled).toBe(unthrottled + 2);
      // Each throttled request was retried after exactly the server's Retry-After, no sooner.
      expect(session.waits().slice(waitsBefore)).toEqual([7000, 7000]);
    });

    check("tokenExpiry", "refreshes each expired token once and completes the read", async () => {
      const session = await start(kit.pageSize + 3);
      const adapter = session.adapter();
      const expected = idsOf(await collect(adapter.files()));
      const held = session.tokensIssued();
      expect(held.length).toBeGreaterThan(0);
      session.expireTokens();
      // The same adapter, its cached tokens now refused with a 401: each one it needs is replaced,
      // once (a second token for the same grant would be a refresh storm), and none is invented.
      const files = await collect(adapter.files());
      expect(idsOf(files)).toEqual(expected);
      const refreshed = session.tokensIssued().slice(held.length);
      expect(refreshed.length).toBeGreaterThan(0);
      expect(new Set(refreshed).size).toBe(refreshed.length);
      expect(refreshed.every((grant) => held.includes(grant))).toBe(true);
      // And the new tokens hold: another read needs none.
      await collect(adapter.files());
      expect(session.tokensIssued()).toHaveLength(held.length + refreshed.length);
    });

    check("changeFeed", "an incremental read after a change agrees with a fresh full read", async () => {
      const session = await start(kit.pageSize + 3);
      const adapter = session.adapter();
      const feed = adapter.changeFeed;
      if (!feed) throw new Error(`${kit.label} has no change feed; its kit must skip this check`);
      const cursor = await feed.start();
      const stored = await fullRead(adapter);
      session.change();
      const read = feed.read(cursor);
      const changes = await collect(read.changes);
      const full = await fullRead(session.adapter());
      expect(sorted(full.values())).not.toEqual(sorted(stored.values()));
      expect(sorted(applyChanges(stored, changes).values())).toEqual(sorted(full.values()));
      // The next read starts where this one ended: nothing more to apply.
      const next = await collect(feed.read(read.cursor()).changes);
      expect(sorted(applyChanges(full, next).values())).toEqual(sorted(full.values()));
    });

    check("writes", "a write records its pre-image, and undo restores what a full read shows", async () => {
      const session = await start(0);
      const { file, permissionId, action } = session.write;
      const writer = session.writer();
      const before = (await fullRead(session.adapter())).get(file.id);
      const shown = before?.permissions.find((p) => p.id === permissionId);
      expect(shown).toBeDefined();

      const image = await writer.readPermission(file, permissionId);
      expect(image).toMatchObject(shown ?? {});
      expect(writer.reversibility(action, image ?? undefined)).toMatchObject({ reversible: true });
      expect(await writer.deletePermission(file, permissionId)).toBe("applied");
      const removed = (await fullRead(session.adapter())).get(file.id);
      expect(grantsOf(removed)).toHaveLength(grantsOf(before).length - 1);
      expect(removed?.permissions.some((p) => p.id === permissionId)).toBe(false);
      // The change is made once: a retry finds it made.
      expect(await writer.deletePermission(file, permissionId)).toBe("already_gone");

      if (!image) throw new Error("no pre-image was read");
      const restored = await writer.restorePermission(file, image);
      session.settleRestore?.();
      const after = (await fullRead(session.adapter())).get(file.id);
      expect(after?.permissions.map((p) => p.id)).toContain(restored.id);
      expect(grantsOf(after)).toEqual(grantsOf(before));
    });

    check("writes", "lowering a grant's role is undone by restoring its pre-image's role", async () => {
      const session = await start(0);
      const { file, permissionId } = session.write;
      const writer = session.writer();
      const before = (await fullRead(session.adapter())).get(file.id);
      const image = await writer.readPermission(file, permissionId);
      if (!image) throw new Error("no pre-image was read");
      expect(image.role).not.toBe("reader");
      expect(writer.reversibility("downgrade_permission", image)).toMatchObject({ reversible: true });

      expect(await writer.updatePermissionRole(file, permissionId, "reader")).toBe("applied");
      const lowered = (await fullRead(session.adapter())).get(file.id);
      expect(lowered?.permissions.find((p) => p.id === permissionId)?.role).toBe("reader");
      // Lowering never raises, and a retry finds the change made.
      expect(await writer.updatePermissionRole(file, permissionId, "reader")).toBe("already_gone");

      expect(await writer.updatePermissionRole(file, permissionId, image.role, "restore")).toBe("applied");
      const after = (await fullRead(session.adapter())).get(file.id);
      expect(after?.permissions).toEqual(before?.permissions);
    });
  });
}
