import { spawn, type ChildProcess } from "node:child_process";
import { readFile } from "node:fs/promises";
import { createServer, type AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";

export type TChild = {
  url: string;
  pid: number;
  /** Resident set size of the child itself, from /proc (null where /proc is absent). */
  rssMb: () => Promise<number | null>;
  stop: () => Promise<void>;
};

export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function waitUntilReady(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (child.exitCode !== null) throw new Error(`child exited with code ${child.exitCode}`);
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`child not ready at ${url} after ${timeoutMs} ms`);
}

/**
 * Runs a TypeScript entry point as a separate Node process (node --import tsx, no wrapper
 * process), so its memory and event loop are its own, and waits until `readyPath` answers 200.
 */
export async function startChild(
  entry: URL,
  o: { port: number; env: Record<string, string>; readyPath: string; cwd?: URL },
): Promise<TChild> {
  const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(entry)], {
    cwd: fileURLToPath(o.cwd ?? new URL("../..", import.meta.url)),
    env: { ...process.env, ...o.env, PORT: String(o.port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const url = `http://127.0.0.1:${o.port}`;
  try {
    await waitUntilReady(`${url}${o.readyPath}`, child, 30_000);
  } catch (e) {
    child.kill("SIGKILL");
    throw new Error(`${(e as Error).message}\n${stderr}`);
  }
  const pid = child.pid ?? -1;
  return {
    url,
    pid,
    rssMb: async () => {
      try {
        const status = await readFile(`/proc/${pid}/status`, "utf8");
        const kb = Number(/VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1]);
        return Number.isFinite(kb) ? kb / 1024 : null;
      } catch {
        return null;
      }
    },
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((r) => child.once("exit", () => r()));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
