import { readFileSync } from "node:fs";

/**
 * The getting-started guides of the API reference, one per kind of user, written as markdown in
 * docs/guides/ and read once when this module loads: the bundle (tooling/build) points
 * `import.meta.url` at this source file, so the same relative path works under tsx, in tests and
 * from dist/. Scalar renders the document's description as markdown, its headings in the sidebar.
 */
export const GUIDE_FILES = ["integrators.md", "ui-teams.md", "partners.md", "mcp.md"] as const;

const GUIDES_DIR = new URL("../../../docs/guides/", import.meta.url);

export const GUIDES_MARKDOWN: string = GUIDE_FILES.map((file) =>
  readFileSync(new URL(file, GUIDES_DIR), "utf8").trim(),
).join("\n\n");
