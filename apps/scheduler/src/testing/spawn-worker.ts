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
 * Starts scan-worker-process.ts from its bundle on plain Node (dist/test/, built when stale
 * by the integration project's global set-up, tooling/test/app-bundles.mjs): it starts in a
 * second, where `node --import tsx` compiled the job registry's sources for ten or more. Node
 * itself is the child: a SIGKILL of it leaves no grandchild running.
 */
export function spawnScanWorker(env: TWorkerProcessEnv): TWorkerProcess {
  const child = spawn(
    process.execPath,
    [
      "--enable-source-maps",
      fileURLToPath(new URL("../../dist/test/scan-worker-process.js", import.meta.url)),
    ],
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
