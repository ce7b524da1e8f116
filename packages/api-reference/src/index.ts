import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/**
 * Scalar's API reference renderer, as its prebuilt standalone browser bundle. It lives in a package
 * of its own so that the renderer's dependency tree stays out of the gateway's; the gateway serves
 * the file from node_modules (no CDN, nothing fetched at run time).
 */
const require = createRequire(import.meta.url);
// The package exports neither its package.json nor the browser bundle; both sit beside its entry.
const PACKAGE_DIR = dirname(dirname(require.resolve("@scalar/api-reference")));

export const SCALAR_VERSION = (
  JSON.parse(readFileSync(join(PACKAGE_DIR, "package.json"), "utf8")) as { version: string }
).version;

/** Absolute path of `dist/browser/standalone.js`: defines `window.Scalar.createApiReference`. */
export const SCALAR_BUNDLE_FILE = join(PACKAGE_DIR, "dist", "browser", "standalone.js");
