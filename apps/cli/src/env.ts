import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

// The only place the CLI reads process.env.
export type TCliEnv = { databaseUrl: string | undefined; dataDir: string };

/**
 * `pnpm cli` runs with apps/cli as its working directory; the folder the operator typed the command
 * in is INIT_CWD. Relative data directories are taken from the workspace root above it, as the
 * gateway's `pnpm start` does, so both open the same embedded database.
 */
export function workspaceRoot(from: string): string {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "pnpm-workspace.yaml"))) return dir;
    if (dirname(dir) === dir) return resolve(from);
  }
}

export function readCliEnv(source: NodeJS.ProcessEnv = process.env): TCliEnv {
  const root = workspaceRoot(source.INIT_CWD ?? process.cwd());
  return {
    databaseUrl: source.DATABASE_URL || undefined,
    dataDir: resolve(root, source.DATA_DIR || ".data"),
  };
}
