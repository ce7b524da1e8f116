import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

// The README's examples are the files under examples/, verbatim: the files are what the
// integration test runs (apps/gateway/src/tests/sdk/integrator.int.test.ts) and what the package's
// tsconfig typechecks, so every example a reader copies has run against a started service.
const root = new URL("../", import.meta.url);
const readme = readFileSync(new URL("README.md", root), "utf8");
const files = readdirSync(new URL("examples/", root)).filter((f) => f.endsWith(".ts"));

describe("README examples", () => {
  it("shows every example file verbatim, after its marker", () => {
    expect(files.length).toBeGreaterThanOrEqual(4);
    for (const file of files) {
      const text = readFileSync(new URL(`examples/${file}`, root), "utf8");
      expect(readme, file).toContain(`<!-- example: examples/${file} -->\n\n\`\`\`ts\n${text}\`\`\`\n`);
    }
  });

  it("has no TypeScript block that is not an example file", () => {
    const blocks = readme.match(/```ts\n/g) ?? [];
    const markers = readme.match(/<!-- example: examples\/[\w-]+\.ts -->\n\n```ts\n/g) ?? [];
    expect(blocks.length).toBe(markers.length);
    expect(markers.length).toBe(files.length);
  });
});
