import { spawn, type ChildProcess } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { createServer, type AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";

export type TChild = {
  url: string;
  pid: number;
  /** Resident set size of the child itself, from /proc (null where /proc is absent). */
  rssMb: () => Promise<number | null>;
  /**
   * CPU time the child has used so far, user + system, in ms: the same figure as the child's own
   * process.cpuUsage(), read from /proc/<pid>/stat (null where /proc is absent).
   */
  cpuMs: () => Promise<number | null>;
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

// Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ, 100 on Linux).
const CLOCK_TICKS_PER_SEC = 100;

async function procCpuMs(pid: number): Promise<number | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name, which is in parentheses and may contain spaces.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1000) / CLOCK_TICKS_PER_SEC : null;
  } catch {
    return null;
  }
}

/**
 * Runs an entry point as a separate Node process (no wrapper process), so its memory, CPU time
 * and event loop are its own, and waits until `readyPath` answers 200. A `.ts` entry runs
 * through tsx; a built `.js` bundle runs on plain Node. BENCH_NODE_ARGS adds Node flags
 * (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile the servers under load).
 */
export async function startChild(
  entry: URL,
  // An undefined value removes the variable from the child's environment.
  o: {
    port: number;
    env: Record<string, string | undefined>;
    readyPath: string;
    cwd?: URL;
    /** The entry's own arguments (e.g. the gateway's `--with-scheduler`). */
    args?: string[];
    /** How long the child may take to answer `readyPath` (30 s unless told). */
    readyTimeoutMs?: number;
  },
): Promise<TChild> {
  const file = fileURLToPath(entry);
  const loader = file.endsWith(".ts") ? ["--import", "tsx"] : [];
  const extra = process.env.BENCH_NODE_ARGS?.split(" ").filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...extra, ...loader, file, ...(o.args ?? [])], {
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
    await waitUntilReady(`${url}${o.readyPath}`, child, o.readyTimeoutMs ?? 30_000);
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
    cpuMs: () => procCpuMs(pid),
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

/**
 * Runs a bench child script (apps/bench/src/children/<name>.ts) to completion and returns the
 * JSON report it prints as its last line of output. BENCH_NODE_ARGS applies here as well.
 */
export function runChildReport<T>(
  name: string,
  env: Record<string, string>,
  nodeFlags: string[] = [],
): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        ...(process.env.BENCH_NODE_ARGS?.split(" ").filter(Boolean) ?? []),
        ...nodeFlags,
        "--import",
        "tsx",
        fileURLToPath(new URL(`../children/${name}.ts`, import.meta.url)),
      ],
      {
        cwd: fileURLToPath(new URL("../..", import.meta.url)),
        env: { ...process.env, ...env },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`${name} child exited ${code}: ${err}`));
      // The report is the last JSON line that is not a log record; the log records
      // (BENCH_LOG_LEVEL=info: each scan's phases) go to stderr, so the figures stay readable.
      const lines = out.trim().split("\n");
      const parsed = lines.map(parseJson);
      const isLog = (v: Record<string, unknown> | null) => v !== null && "level" in v && "msg" in v;
      for (const [i, line] of lines.entries())
        if (isLog(parsed[i] ?? null)) process.stderr.write(`${line}\n`);
      const report = parsed.reverse().find((v) => v !== null && !isLog(v));
      if (report) resolve(report as T);
      else reject(new Error(`${name} child printed no report: ${out.slice(-2000)}${err}`));
    });
  });
}

function parseJson(line: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(line);
    return typeof v === "object" && v !== null ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Peak resident set (VmHWM) of a process, from /proc (null where /proc is absent). */
export async function peakRssMb(pid: number): Promise<number | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    const kb = Number(/VmHWM:\s+(\d+)\s+kB/.exec(status)?.[1]);
    return Number.isFinite(kb) ? Math.round(kb / 1024) : null;
  } catch {
    return null;
  }
}

/**
 * Starts the process's peak RSS afresh (Linux: writing 5 to clear_refs resets VmHWM), so each
 * phase's peak is its own; where that is refused, the peaks stay the process's lifetime ones.
 */
export async function resetPeakRss(pid: number): Promise<void> {
  await writeFile(`/proc/${pid}/clear_refs`, "5").catch(() => {});
}
