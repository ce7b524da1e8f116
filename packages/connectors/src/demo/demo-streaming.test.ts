import { describe, expect, it } from "vitest";
import { createDemoAdapter } from "./index";

describe("demo workspace size", () => {
  it("streams a 100,000-file workspace item by item", async () => {
    const adapter = createDemoAdapter({
      seed: "streaming",
      type: "microsoft_365",
      fileCount: 100_000,
      epoch: new Date("2025-06-01T00:00:00Z"),
    });
    let files = 0;
    let permissions = 0;
    for await (const file of adapter.files()) {
      files++;
      permissions += file.permissions.length;
    }
    let users = 0;
    for await (const _user of adapter.users()) users++;
    expect(files).toBe(100_000);
    expect(permissions).toBeGreaterThan(files);
    // Users grow with files, but slower (one per forty files).
    expect(users).toBe(2_500);
  }, 60_000);

  it("defaults to 2,000 files and at least 25 users", async () => {
    const adapter = createDemoAdapter({ seed: "default", type: "google_workspace" });
    let files = 0;
    for await (const _file of adapter.files()) files++;
    expect(files).toBe(2_000);
    let users = 0;
    for await (const _user of createDemoAdapter({
      seed: "tiny",
      type: "google_workspace",
      fileCount: 10,
    }).users())
      users++;
    expect(users).toBe(25);
  });
});
