// Vitest global set-up of the integration project: checks, once and before any test file runs, what
// the tests need from the machine, and says how to get what is missing instead of letting dozens of
// files fail with ECONNREFUSED or `spawnSync qpdf ENOENT`.
import { spawnSync } from "node:child_process";
import { connect } from "node:net";

/** Whether a TCP connection to the URL's host and port opens within a second. */
function reachable(url, defaultPort) {
  const u = new URL(url);
  const port = Number(u.port || defaultPort);
  return new Promise((resolve) => {
    const socket = connect({ host: u.hostname, port, timeout: 1_000 });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
    socket.once("timeout", () => done(false));
  });
}

const onPath = (command, env) =>
  spawnSync(command, ["--version"], { stdio: "ignore", env }).error === undefined;

/** What the integration tests need and the machine lacks, as sentences; empty when all is there. */
export async function missingPrerequisites(env = process.env) {
  const postgres = env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const redis = env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
  const missing = [];
  if (!(await reachable(postgres, 5432)))
    missing.push(
      `PostgreSQL at ${new URL(postgres).host} (user postgres, trust auth; TEST_DATABASE_URL overrides)`,
    );
  if (!(await reachable(redis, 6379)))
    missing.push(`Redis at ${new URL(redis).host} (TEST_REDIS_URL overrides)`);
  for (const command of ["qpdf", "pdftotext"])
    if (!onPath(command, env))
      missing.push(
        `${command} on PATH (the PDF tests check documents with it): apt-get install poppler-utils qpdf`,
      );
  if (!onPath("curl", env))
    missing.push("curl on PATH (the README walk runs the README's commands): apt-get install curl");
  return missing;
}

export default async function setup() {
  const missing = await missingPrerequisites();
  if (missing.length > 0)
    throw new Error(
      `The integration tests need:\n  - ${missing.join("\n  - ")}\n` +
        "`bash .ci/run` starts PostgreSQL and Redis and installs the PDF tools on Debian.",
    );
}
