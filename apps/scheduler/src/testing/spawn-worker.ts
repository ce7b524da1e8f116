import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

export type TWorkerProcessEnv = {
  REDIS_URL: string;
  DATABASE_URL: string;
  JOBS_PREFIX: string;
  ENCRYPTION_KEY: string;
  LOCK_DURATION_MS: string;
  STALLED_INTERVAL_MS: string;
};

export type TWorkerProcess = {
  child: ChildProcess;
  /** Resolves once the worker printed `line` on stdout; rejects if it exits first. */
  printed: (line: string) => Promise<void>;
  /** What it wrote to stderr so far (warnings, errors), for failure messages. */
  stderr: () => string;
  /** SIGKILL, then wait for the exit: no clean-up runs, its locks and connections are just dropped. */
  kill: () => Promise<void>;
};

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
}

/**
 * Starts scan-worker-process.ts under `node --import tsx`. Not the tsx binary: that runs the
 * script in a grandchild, which a SIGKILL of the child it returns would leave running.
 */
export function spawnScanWorker(env: TWorkerProcessEnv): TWorkerProcess {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", fileURLToPath(new URL("./scan-worker-process.ts", import.meta.url))],
    {
      cwd: fileURLToPath(new URL("../..", import.meta.url)),
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  let err = "";
  child.stdout?.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (err += chunk.toString()));

  const printed = (line: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!out.includes(line)) return false;
        resolve();
        return true;
      };
      if (check()) return;
      child.stdout?.on("data", check);
      child.once("exit", (code, signal) =>
        reject(new Error(`worker exited (${String(code ?? signal)}) before "${line}": ${err}`)),
      );
    });

  return {
    child,
    printed,
    stderr: () => err,
    kill: async () => {
      child.kill("SIGKILL");
      await exited(child);
    },
  };
}
