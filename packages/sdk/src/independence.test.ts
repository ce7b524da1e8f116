import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

// The SDK is published on its own: nothing it ships may reach into the server's packages.
const src = new URL("./", import.meta.url);
const shipped = readdirSync(src).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"));

describe("@posture/sdk stands alone", () => {
  it("imports no @posture package from its source", () => {
    expect(shipped).toContain("client.ts");
    for (const file of shipped) {
      const text = readFileSync(new URL(file, src), "utf8");
      expect(text, file).not.toMatch(/from\s+["']@posture\//);
      expect(text, file).not.toMatch(/import\(\s*["']@posture\//);
    }
  });

  it("has no @posture runtime dependency", () => {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
      dependencies?: Record<string, string>;
      peerDependencies?: Record<string, string>;
    };
    const runtime = Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies });
    expect(runtime).toContain("openapi-fetch");
    expect(runtime.filter((d) => d.startsWith("@posture/"))).toEqual([]);
  });
});
