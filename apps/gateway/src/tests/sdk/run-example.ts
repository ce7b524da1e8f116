import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

/** packages/sdk/examples: programs written only against @posture/sdk, shown in its README. */
export const EXAMPLES_DIR = fileURLToPath(new URL("../../../../../packages/sdk/examples/", import.meta.url));
const TSX = fileURLToPath(new URL("../../../node_modules/.bin/tsx", import.meta.url));

export type TExampleRun = { code: number | null; stdout: string; stderr: string };

/** The environment an integrator's program gets: the service's address and an API key, nothing else. */
export type TExampleEnv = {
  SERVICE_URL: string;
  SERVICE_API_KEY?: string;
  [name: string]: string | undefined;
};

function spawnExample(name: string, env: TExampleEnv, cwd?: string): ChildProcess {
  return spawn(TSX, [`${EXAMPLES_DIR}${name}`], {
    cwd: cwd ?? EXAMPLES_DIR,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** Runs an example to its end, as `tsx examples/<name>` would in a shell. */
export function runExample(name: string, env: TExampleEnv, cwd?: string): Promise<TExampleRun> {
  const child = spawnExample(name, env, cwd);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** A long-running example (a receiver): its output so far, a wait for a line, and a stop. */
export function startExample(name: string, env: TExampleEnv) {
  const child = spawnExample(name, env);
  const lines: string[] = [];
  let stderr = "";
  let buffered = "";
  child.stdout?.on("data", (c: Buffer) => {
    buffered += c.toString();
    const parts = buffered.split("\n");
    buffered = parts.pop() ?? "";
    lines.push(...parts);
  });
  child.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
  return {
    lines,
    stderr: () => stderr,
    /** The first line matching, waiting up to `timeoutMs` for it. */
    async waitForLine(pattern: RegExp, timeoutMs = 20_000): Promise<RegExpMatchArray> {
      const until = Date.now() + timeoutMs;
      for (;;) {
        for (const line of lines) {
          const m = line.match(pattern);
          if (m) return m;
        }
        if (Date.now() > until || child.exitCode !== null)
          throw new Error(`no line matching ${pattern}; output:\n${lines.join("\n")}\n${stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.on("close", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
