import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** The monorepo root above `from` (where pnpm-workspace.yaml is), or `from` itself outside one. */
export function workspaceRoot(from: string): string {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "pnpm-workspace.yaml"))) return dir;
    if (dirname(dir) === dir) return resolve(from);
  }
}

/**
 * pnpm runs each app with its own folder as working directory; the folder the operator typed the
 * command in is INIT_CWD. A relative DATA_DIR is taken from the workspace root above it, so
 * `pnpm start` and `pnpm cli` open the same embedded database.
 */
export function resolveDataDir(dataDir: string, env: NodeJS.ProcessEnv = process.env): string {
  return resolve(workspaceRoot(env.INIT_CWD ?? process.cwd()), dataDir);
}
