import { defineConfig } from "vitest/config";

// Two projects: fast unit tests, and integration tests that talk to the real PostgreSQL and
// Redis on this machine (each file creates its own database / key prefix, so files run in parallel).
export default defineConfig({
  test: {
    // vitest's default is availableParallelism() - 1, one worker on CI's 2 cores; the integration
    // files mostly wait on PostgreSQL and child processes, so three keep both cores busy (the
    // suite: 675 s against 1,587–1,690 s at one worker, decisions "three test workers").
    maxWorkers: 3,
    projects: [
      {
        test: {
          name: "unit",
          // The unit files first (about 40 s): a broken engine fails the run before the
          // integration files start.
          sequence: { groupOrder: 0 },
          include: ["{apps,packages}/*/src/**/*.test.ts", "tooling/*/**/*.test.mjs"],
          exclude: ["**/*.int.test.ts", "**/node_modules/**"],
        },
      },
      {
        test: {
          name: "integration",
          sequence: { groupOrder: 1 },
          // A worker's files share one module graph instead of importing the whole app again per
          // file (each file has its own database, key prefix and gateway; nothing in them mocks a
          // module): the suite's import time fell from 457 s to 109 s, its test phase from 542 s
          // to 358 s (decisions, "Integration files share a worker's modules").
          isolate: false,
          include: ["{apps,packages}/*/src/**/*.int.test.ts"],
          exclude: ["**/node_modules/**"],
          // Checks PostgreSQL, Redis and the PDF tools once, and says what is missing; builds the
          // gateway's and the CLI's bundles (when stale) that tests run as `node dist/main.js`; and
          // makes the directory of the run's one embedded first start, which the first file that
          // needs it does and the others copy (tooling/test/first-start.mjs).
          globalSetup: [
            "tooling/test/prerequisites.mjs",
            "tooling/test/app-bundles.mjs",
            "tooling/test/first-start.mjs",
          ],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
