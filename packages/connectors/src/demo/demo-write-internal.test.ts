import { describe, expect, it } from "vitest";
import { collect } from "../../../fakes/src/adapter-harness";
import type { TSourceFile } from "../types";
import type { TDemoOverlayStore, TWriteFile } from "../write";
import { NO_RESTRICT_REASON } from "../reversibility";
import { createDemoAdapter, type TDemoOptions } from "./index";
import { createDemoWriter } from "./write";

// The sandbox's writer on internal exposure (issue 30): an organization-wide link a scenario added
// is made link-only on a Google tenant and searchable again on undo, removed on either tenant, and
// a Microsoft tenant refuses to restrict a link as Graph does.

const EPOCH = new Date("2026-03-02T09:00:00.000Z");

function memoryOverlay(): TDemoOverlayStore & { entries: Map<string, Record<string, unknown>> } {
  const entries = new Map<string, Record<string, unknown>>();
  return {
    entries,
    load: async () => new Map([...entries].map(([k, v]) => [k, structuredClone(v)])),
    put: async (key, change) => void entries.set(key, structuredClone(change)),
    remove: async (key) => void entries.delete(key),
  };
}

async function withOrgWideLink(opts: Omit<TDemoOptions, "overlay">, discoverable: boolean) {
  const overlay = memoryOverlay();
  const all = { ...opts, overlay };
  const files = async () =>
    new Map((await collect(createDemoAdapter(all).files())).map((f) => [f.id, f] as const));
  const file = [...(await files()).values()][3] as TSourceFile;
  const index = parseInt((file.permissions[0]?.id ?? "").split("-")[0] ?? "", 36);
  const domain = file.ownerEmail.split("@")[1] ?? "";
  const id = `${index.toString(36)}-sbxorg`;
  const link = {
    id,
    type: "domain" as const,
    role: "reader" as const,
    domain,
    link: { expiresAt: null, discoverable },
  };
  await overlay.put(`perm:${file.id}:${id}`, { op: "added", permission: link, i: index, v: 1 });
  const target: TWriteFile = { id: file.id, driveId: file.driveId, ownerEmail: file.ownerEmail };
  return { overlay, writer: createDemoWriter(all), files, file, target, link };
}

describe("the demo writer on internal exposure", () => {
  it("makes a Google org-wide link link-only once, and searchable again on undo", async () => {
    const s = await withOrgWideLink(
      { seed: "int-g", type: "google_workspace", fileCount: 300, epoch: EPOCH },
      true,
    );
    const image = await s.writer.readPermission(s.target, s.link.id);
    expect(image).toEqual(s.link);
    expect(await s.writer.restrictLink?.(s.target, s.link.id)).toBe("applied");
    expect(await s.writer.restrictLink?.(s.target, s.link.id)).toBe("already_gone");
    const restricted = (await s.files()).get(s.file.id);
    expect(restricted?.permissions.find((p) => p.id === s.link.id)).toEqual({
      ...s.link,
      link: { expiresAt: null, discoverable: false },
    });
    if (!image) throw new Error("no image");
    expect(await s.writer.restorePermission(s.target, image)).toEqual({ id: s.link.id });
    expect((await s.files()).get(s.file.id)?.permissions.find((p) => p.id === s.link.id)).toEqual(s.link);
    // A permission of a person is no link.
    await expect(s.writer.restrictLink?.(s.target, s.file.permissions[0]?.id ?? "")).rejects.toMatchObject({
      status: 400,
      code: "unsupported",
    });
  });

  it("removes an org-wide link on either tenant; Microsoft refuses to restrict one", async () => {
    for (const type of ["google_workspace", "microsoft_365"] as const) {
      const s = await withOrgWideLink({ seed: "int-m", type, fileCount: 300, epoch: EPOCH }, false);
      if (type === "microsoft_365")
        await expect(s.writer.restrictLink?.(s.target, s.link.id)).rejects.toMatchObject({
          status: 400,
          code: "unsupported",
          message: NO_RESTRICT_REASON,
        });
      expect(s.writer.reversibility("remove_org_wide_link").reversible).toBe(type === "google_workspace");
      expect(await s.writer.deletePermission(s.target, s.link.id)).toBe("applied");
      expect(await s.writer.deletePermission(s.target, s.link.id)).toBe("already_gone");
      expect((await s.files()).get(s.file.id)).toEqual(s.file);
    }
  });
});
