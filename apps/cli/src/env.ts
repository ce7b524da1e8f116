import { resolveDataDir } from "@posture/db";

// The only place the CLI reads process.env.
export type TCliEnv = { databaseUrl: string | undefined; dataDir: string };

export function readCliEnv(source: NodeJS.ProcessEnv = process.env): TCliEnv {
  return {
    databaseUrl: source.DATABASE_URL || undefined,
    dataDir: resolveDataDir(source.DATA_DIR || ".data", source),
  };
}
