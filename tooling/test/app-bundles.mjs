// Vitest global set-up of the integration project: builds, once and before any test file runs, the
// apps that tests start as processes (the gateway, the CLI), the way `pnpm start` and `pnpm cli`
// do: `posture-build --if-stale` into each app's dist/. The tests then run `node dist/main.js`, a
// process that starts in a fraction of the time `tsx` takes to compile the sources per call. A
// clean clone builds here; a later run with unchanged sources costs a few hundred stat calls.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundle } from "../build/bundle.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The apps whose bundle a test spawns (apps/<app>/dist/main.js), by folder under apps/. */
const APP_BUNDLES = ["gateway", "cli"];

export default async function setup() {
  const started = Date.now();
  const built = [];
  for (const app of APP_BUNDLES) {
    const result = await bundle({
      appDir: join(ROOT, "apps", app),
      entries: ["src/main.ts"],
      ifStale: true,
      quiet: true,
    });
    if (result.built) built.push(app);
  }
  if (built.length > 0)
    process.stderr.write(
      `built the ${built.join(" and ")} bundles for the tests (${Date.now() - started} ms)\n`,
    );
}
