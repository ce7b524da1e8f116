import { describe, expect, it } from "vitest";
import { collect } from "../../../fakes/src/adapter-harness";
import type { TSourceAdapter } from "../types";
import { createDemoAdapter, describeDemoWorkspace, type TDemoOptions } from "./index";

const NOW = new Date("2025-06-01T12:00:00.000Z");

async function snapshot(adapter: TSourceAdapter) {
  return {
    workspace: await adapter.workspace(),
    users: await collect(adapter.users()),
    files: await collect(adapter.files()),
    drives: await collect(adapter.sharedDrives()),
    grants: await collect(adapter.appGrants()),
    activity: await collect(adapter.activity(new Date(0))),
  };
}

const base: TDemoOptions = { seed: "determinism", type: "google_workspace", fileCount: 600, epoch: NOW };

describe("demo workspace determinism", () => {
  it("produces identical output for the same seed, type, size, revision and now", async () => {
    const a = await snapshot(createDemoAdapter(base));
    const b = await snapshot(createDemoAdapter({ ...base, revision: 0 }));
    expect(b).toEqual(a);
    expect(a.files).toHaveLength(600);
  });

  it("differs between seeds", async () => {
    const a = await snapshot(createDemoAdapter(base));
    const b = await snapshot(createDemoAdapter({ ...base, seed: "another seed" }));
    expect(b.workspace.domain).not.toBe(a.workspace.domain);
    const idsA = new Set(a.files.map((f) => f.id));
    expect(b.files.filter((f) => idsA.has(f.id))).toHaveLength(0);
    expect(b.users.map((u) => u.id)).not.toEqual(a.users.map((u) => u.id));
  });

  it("anchors timestamps on the epoch: the same items, shifted", async () => {
    const later = new Date(NOW.getTime() + 7 * 86_400_000);
    const a = await snapshot(createDemoAdapter(base));
    const b = await snapshot(createDemoAdapter({ ...base, epoch: later }));
    expect(b.files.map((f) => f.id)).toEqual(a.files.map((f) => f.id));
    const first = a.files[0];
    const shifted = b.files[0];
    expect(first && shifted && Date.parse(shifted.modifiedAt) - Date.parse(first.modifiedAt)).toBe(
      7 * 86_400_000,
    );
    for (const event of b.activity) expect(Date.parse(event.at)).toBeLessThanOrEqual(later.getTime());
  });

  it("derives the workspace domain from the seed and counts it as internal", async () => {
    const google = await createDemoAdapter(base).workspace();
    expect(google.domain).toMatch(/^[a-z-]+-[0-9a-f]{6}\.example$/);
    expect(google.internalDomains).toContain(google.domain);
    const microsoft = await createDemoAdapter({ ...base, type: "microsoft_365" }).workspace();
    expect(microsoft.internalDomains).toContain(microsoft.domain);
    expect(microsoft.internalDomains.some((d) => d.endsWith(".onmicrosoft.com"))).toBe(true);
    expect(describeDemoWorkspace(base).domain).toBe(google.domain);
  });

  it("keeps identifiers unique within a workspace", async () => {
    const a = await snapshot(createDemoAdapter({ ...base, fileCount: 3000 }));
    expect(new Set(a.files.map((f) => f.id)).size).toBe(a.files.length);
    expect(new Set(a.users.map((u) => u.id)).size).toBe(a.users.length);
    expect(new Set(a.users.map((u) => u.email)).size).toBe(a.users.length);
    expect(new Set(a.drives.map((d) => d.id)).size).toBe(a.drives.length);
    expect(new Set(a.grants.map((g) => g.id)).size).toBe(a.grants.length);
    expect(new Set(a.activity.map((e) => e.id)).size).toBe(a.activity.length);
    for (const file of a.files)
      expect(new Set(file.permissions.map((p) => p.id)).size).toBe(file.permissions.length);
  });
});

describe("demo workspace flavours", () => {
  it("uses Drive MIME types and Google OAuth scope URLs for google_workspace", async () => {
    const a = await snapshot(createDemoAdapter(base));
    expect(a.files.some((f) => f.mimeType === "application/vnd.google-apps.spreadsheet")).toBe(true);
    expect(a.files.some((f) => f.mimeType.includes("openxmlformats"))).toBe(false);
    expect(a.grants.some((g) => g.scopes.includes("https://www.googleapis.com/auth/drive"))).toBe(true);
  });

  it("uses Office MIME types and Graph scopes for microsoft_365", async () => {
    const a = await snapshot(createDemoAdapter({ ...base, type: "microsoft_365" }));
    expect(
      a.files.some((f) => f.mimeType === "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
    ).toBe(true);
    expect(a.files.some((f) => f.mimeType.startsWith("application/vnd.google-apps"))).toBe(false);
    expect(a.grants.some((g) => g.scopes.includes("Files.ReadWrite.All"))).toBe(true);
    expect(a.grants.some((g) => g.scopes.includes("Mail.Read"))).toBe(true);
    expect(a.grants.flatMap((g) => g.scopes).some((s) => s.startsWith("https://www.googleapis.com"))).toBe(
      false,
    );
  });
});
