// The embedded first start, once per integration run: `pnpm start` in an empty directory
// migrates PGlite and seeds the demo with its eight weeks of history (a minute or more on a busy
// 2-core machine), and several files need one. The first file that asks does it, the way
// `pnpm start` does (`node --enable-source-maps dist/main.js --with-scheduler` from the gateway's
// bundle, in a fresh directory, `.data` beside it), stops it with SIGTERM and keeps its stdout
// (the banner: password, API key) and its data directory; a file that asks while that runs waits
// for it. Each file then starts the bundle again on a copy of that directory: the README's "stop
// `pnpm start`, start it again" (the demo data and the printed password stay valid), in seconds.
//
// The default export is the integration project's global set-up: it makes the run's directory
// (passed to the test files with `provide`), does the first start there before any file runs when
// the run includes a file of FIRST_START_FILES (so that its minute is the set-up's, printed once,
// and no file's), and removes the directory afterwards. A run of other files pays nothing; a file
// that asks when the set-up did not start it (a name filter, a file not listed) starts it then.
import { spawn } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const GATEWAY_DIST = join(ROOT, "apps", "gateway", "dist");

/** The test files that start the gateway on a copy of the first start's directory. */
export const FIRST_START_FILES = [
  "apps/cli/src/embedded-held.int.test.ts",
  "apps/gateway/src/tests/issue18-embedded-demo.int.test.ts",
  "apps/gateway/src/tests/readme-walk.int.test.ts",
  "apps/gateway/src/tests/throughput/production-build.int.test.ts",
];
/** What `pnpm start` (the gateway's start:all) runs in the app's directory. */
export const START_ARGS = ["--enable-source-maps", "dist/main.js", "--with-scheduler"];
const FIRST_START_TIMEOUT_MS = 240_000;

/**
 * The environment a started service gets: the test process's, less what would point it at the
 * repository's services or data (no INIT_CWD: under `pnpm test` it names the repository, whose
 * `.data` would then be the service's).
 */
export function serviceEnv(extra = {}) {
  const inherited = { ...process.env };
  for (const name of ["REDIS_URL", "DATABASE_URL", "NODE_ENV", "INIT_CWD", "DATA_DIR", "ENCRYPTION_KEY"])
    delete inherited[name];
  return { ...inherited, PORT: "0", LOG_LEVEL: "info", ...extra };
}

/** Lines of a process's stdout, collected as they come. */
function collect(proc) {
  const lines = [];
  createInterface({ input: proc.stdout }).on("line", (l) => lines.push(l));
  return lines;
}

/** Resolves with `found(lines)` once it returns a value; rejects when the process exits first. */
function waitForOutput(proc, lines, found, timeoutMs, what) {
  return new Promise((resolve, reject) => {
    const check = () => {
      const value = found(lines);
      if (value === undefined) return false;
      clearInterval(timer);
      clearTimeout(deadline);
      resolve(value);
      return true;
    };
    const timer = setInterval(check, 100);
    const deadline = setTimeout(() => {
      clearInterval(timer);
      reject(new Error(`${what}: not within ${timeoutMs} ms:\n${lines.join("\n")}`));
    }, timeoutMs);
    proc.once("exit", (code) => {
      if (check()) return;
      clearInterval(timer);
      clearTimeout(deadline);
      reject(new Error(`${what}: the service exited with ${code}:\n${lines.join("\n")}`));
    });
  });
}

/** The demo banner's password, API key and URL, once all three are printed. */
export function bannerOf(lines) {
  const text = lines.join("\n");
  const url = /Reference: (http:\/\/localhost:\d+)\/api\/docs/.exec(text)?.[1];
  const password = /owner@acme\.example\s+\/\s+(\S+)/.exec(text)?.[1];
  const key = /API key for Acme Corp:\s+(svc_ak_[0-9a-f]{40})/.exec(text)?.[1];
  return url && password && key ? { url, password, key } : undefined;
}

/** The "gateway listening" log entries (url, pid), in order. */
export function listeningOf(lines) {
  const found = [];
  for (const line of lines) {
    if (!line.startsWith("{")) continue;
    try {
      const entry = JSON.parse(line);
      if (entry.msg === "gateway listening" && entry.url) found.push({ url: entry.url, pid: entry.pid });
    } catch {
      // not a log line
    }
  }
  return found;
}

async function runFirstStart(root) {
  const dir = join(root, "first");
  await mkdir(dir);
  await symlink(GATEWAY_DIST, join(dir, "dist"), "dir");
  const begun = Date.now();
  const proc = spawn(process.execPath, START_ARGS, {
    cwd: dir,
    env: serviceEnv(),
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = collect(proc);
  try {
    await waitForOutput(proc, lines, bannerOf, FIRST_START_TIMEOUT_MS, "the first start's demo banner");
  } catch (err) {
    proc.kill("SIGKILL");
    throw err;
  }
  const seededMs = Date.now() - begun;
  const exited = new Promise((resolve) => proc.once("exit", (code) => resolve(code)));
  proc.kill("SIGTERM");
  const exitCode = await exited;
  return { stdout: lines, exitCode, seededMs, dataDir: join(dir, ".data") };
}

let mine;

/** The run's directory, from the global set-up below. */
async function runRoot() {
  const { inject } = await import("vitest");
  const root = inject("firstStartRoot");
  if (!root) throw new Error("tooling/test/first-start.mjs is not a global set-up of this project");
  return root;
}

/**
 * The run's one embedded first start: {stdout (lines), banner {url, password, key}, exitCode
 * (of its SIGTERM), seededMs, dataDir}. The first caller of the run does it; others wait.
 */
export async function firstStart(root) {
  root ??= await runRoot();
  mine ??= (async () => {
    const result = join(root, "result.json");
    let owner = false;
    try {
      await mkdir(join(root, "lock"));
      owner = true;
    } catch {
      // another test file does it
    }
    if (owner) {
      let outcome;
      try {
        outcome = { ok: true, ...(await runFirstStart(root)) };
      } catch (err) {
        outcome = { ok: false, error: String(err?.stack ?? err) };
      }
      await writeFile(`${result}.tmp`, JSON.stringify(outcome));
      await cp(`${result}.tmp`, result);
    }
    const deadline = Date.now() + FIRST_START_TIMEOUT_MS + 30_000;
    for (;;) {
      const text = await readFile(result, "utf8").catch(() => undefined);
      if (text !== undefined) {
        const outcome = JSON.parse(text);
        if (!outcome.ok) throw new Error(`the shared first start failed: ${outcome.error}`);
        return { ...outcome, banner: bannerOf(outcome.stdout) };
      }
      if (Date.now() > deadline) throw new Error("the shared first start did not finish");
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  return mine;
}

/** Copies the first start's data directory (encryption keys, `pg`) to `dataDir`; returns the start. */
export async function copyFirstStart(dataDir) {
  const first = await firstStart();
  await cp(first.dataDir, dataDir, { recursive: true });
  return first;
}

/**
 * Copies the first start's data directory to `dataDir` (the default `.data` of a fresh directory
 * when not given) and starts the bundle there, as a second `pnpm start`: resolves once `listeners`
 * processes have logged "gateway listening". `args` are node's (START_ARGS by default).
 */
export async function startAgain({ env = {}, args = START_ARGS, dataDir, listeners = 1 } = {}) {
  const first = await firstStart();
  const dir = await mkdtemp(join(tmpdir(), "posture-again-"));
  await symlink(GATEWAY_DIST, join(dir, "dist"), "dir");
  const target = dataDir ?? join(dir, ".data");
  await cp(first.dataDir, target, { recursive: true });
  const proc = spawn(process.execPath, args, {
    cwd: dir,
    env: serviceEnv({ ...(dataDir ? { DATA_DIR: dataDir } : {}), ...env }),
    stdio: ["ignore", "pipe", "inherit"],
  });
  const stdout = collect(proc);
  try {
    const listening = await waitForOutput(
      proc,
      stdout,
      (lines) => {
        const found = listeningOf(lines);
        return found.length >= listeners ? found : undefined;
      },
      120_000,
      "the second start",
    );
    return { proc, dir, stdout, first, url: listening[0].url, listening };
  } catch (err) {
    proc.kill("SIGKILL");
    throw err;
  }
}

/**
 * Whether the run includes a file of FIRST_START_FILES: vitest's file filters (the CLI's
 * positional arguments; none runs every file) match a file whose path contains one of them.
 * `filenamePattern` is vitest's own field, not a documented one: without it, say yes.
 */
function runIncludesFirstStartFiles(project) {
  const filters = project?.vitest?.filenamePattern;
  if (!Array.isArray(filters) || filters.length === 0) return true;
  return FIRST_START_FILES.some((file) =>
    filters.some((f) => join(ROOT, file).includes(f.replace(/^\.\//, ""))),
  );
}

/** Global set-up: the run's directory, its first start when a file needs it, removed at the end. */
export default async function setup(project) {
  const root = await mkdtemp(join(tmpdir(), "posture-first-start-"));
  project.provide("firstStartRoot", root);
  if (runIncludesFirstStartFiles(project)) {
    try {
      const first = await firstStart(root);
      process.stderr.write(
        `the embedded first start for ${FIRST_START_FILES.length} test files: migrated and seeded in ${first.seededMs} ms\n`,
      );
    } catch (err) {
      // Recorded for the files that need it: each fails with it, the others run.
      process.stderr.write(`${String(err)}\n`);
    }
  }
  return async () => {
    await rm(root, { recursive: true, force: true });
  };
}
