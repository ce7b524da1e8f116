// Vitest global set-up of the integration project: builds, once and before any test file runs, the
// apps that tests start as processes (the gateway, the CLI, a scheduler worker), the way `pnpm start` and `pnpm cli`
// do: `posture-build --if-stale` into each app's dist/. The tests then run `node dist/main.js`, a
// process that starts in a fraction of the time `tsx` takes to compile the sources per call. A
// clean clone builds here; a later run with unchanged sources costs a few hundred stat calls.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundle } from "../build/bundle.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/**
 * The bundles a test spawns, by app folder under apps/: the gateway's and the CLI's
 * dist/main.js, and the scheduler's test worker (src/testing/scan-worker-process.ts, a process of
 * the service's job registry that tests kill mid-scan) in dist/test/scan-worker-process.js, apart from `pnpm start`'s.
 */
const APP_BUNDLES = [
  { app: "gateway", entries: ["src/main.ts"] },
  { app: "cli", entries: ["src/main.ts"] },
  {
    app: "scheduler",
    entries: ["src/testing/scan-worker-process.ts"],
    outdir: "dist/test",
    outbase: "src/testing",
  },
];

export default async function setup() {
  const started = Date.now();
  const built = [];
  for (const { app, entries, outdir, outbase } of APP_BUNDLES) {
    const result = await bundle({
      appDir: join(ROOT, "apps", app),
      entries,
      ...(outdir ? { outdir, outbase } : {}),
      ifStale: true,
      quiet: true,
    });
    if (result.built) built.push(app);
  }
  if (built.length > 0)
    process.stderr.write(
      `built the ${built.join(", ")} bundles for the tests (${Date.now() - started} ms)\n`,
    );
}
