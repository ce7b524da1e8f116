import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";

const root = new URL("../../", import.meta.url).pathname;
const read = (path) => readFileSync(join(root, path), "utf8");
const dirs = (parent) =>
  readdirSync(join(root, parent), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => `${parent}/${d.name}`);

/** Every markdown file under docs/, sub-folders (docs/sources/) included. */
const markdownUnder = (parent) =>
  readdirSync(join(root, parent), { withFileTypes: true }).flatMap((d) =>
    d.isDirectory()
      ? markdownUnder(`${parent}/${d.name}`)
      : d.name.endsWith(".md")
        ? [`${parent}/${d.name}`]
        : [],
  );
const DOCS = ["README.md", ...markdownUnder("docs")];
// Short paths in the docs are relative to the doc, the repository, a package, or a package's src
// folder. Build outputs (dist/) and the specification (shared/, beside the clone) are not in it.
const PACKAGES = [...dirs("apps"), ...dirs("packages")];
const BASES = [root, ...PACKAGES.flatMap((d) => [join(root, d), join(root, d, "src")])];

/** The repository files a doc cites in backticks (`apps/gateway/src/app.ts`, `middleware/csrf.ts`). */
function citedPaths(text) {
  const paths = [];
  for (const [, token] of text.matchAll(/`([\w.@-]+(?:\/[\w.@-]+)+)`/g))
    if (/\.(ts|mjs|js|json|md|ya?ml|sql)$/.test(token) && !token.startsWith("/api/")) paths.push(token);
  return paths;
}

describe("the docs", () => {
  it("cite only files that exist", () => {
    const missing = DOCS.flatMap((doc) =>
      citedPaths(read(doc))
        .filter((p) => !p.includes("dist/") && !p.startsWith("shared/"))
        .filter((p) => ![join(root, dirname(doc)), ...BASES].some((base) => existsSync(join(base, p))))
        .map((p) => `${doc}: ${p}`),
    );
    expect(missing).toEqual([]);
  });

  it("README's layout names every app and package", () => {
    const layout = read("README.md").split("## Layout")[1]?.split("\n## ")[0] ?? "";
    const unnamed = PACKAGES.filter((d) => !new RegExp(`^${d}\\s`, "m").test(layout));
    expect(unnamed).toEqual([]);
  });
});
