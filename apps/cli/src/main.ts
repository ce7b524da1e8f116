import { DataDirInUseError, openDb } from "@posture/db";
import {
  asUnnamedWrite,
  auditKeyMatches,
  createRedis,
  dataWrites,
  isAppError,
  RateLimits,
  setAuditKey,
  type TDataWrites,
} from "@posture/platform";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";
import { loadAuditKey } from "./audit-key";
import { COMMANDS, isCommandName, type TResult } from "./commands";
import { readCliEnv } from "./env";
import { evidenceVerify } from "./evidence-verify";

// Usage errors exit 2, failures of a well-formed command 1, a check that found a fault 3.
class UsageError extends Error {}
/** A well-formed command that cannot run here: the audit key or the database is not the server's. */
class RefusedError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function usage(): string {
  return [
    "Usage: pnpm cli <command> [options] [--json]",
    "",
    "Commands:",
    ...Object.values(COMMANDS).map((c) => `  ${c.usage}`),
    "  evidence:verify FILE [--jwks FILE|URL]   (offline: no database, no service)",
  ].join("\n");
}

function parse(argv: string[]) {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
        name: { type: "string" },
        plan: { type: "string" },
        partner: { type: "boolean" },
        sandbox: { type: "boolean" },
        "managed-by": { type: "string" },
        unmanaged: { type: "boolean" },
        org: { type: "string" },
        email: { type: "string" },
        password: { type: "string" },
        role: { type: "string" },
        user: { type: "string" },
        "expires-in-days": { type: "string" },
        scopes: { type: "string" },
        jwks: { type: "string" },
      },
    });
    const { json, help, ...options } = values;
    return { json: json ?? false, help: help ?? false, positionals, options };
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  }
}

function describe(err: unknown): { code: string; message: string; exitCode: number } {
  if (err instanceof UsageError) return { code: "usage", message: err.message, exitCode: 2 };
  if (err instanceof z.ZodError) {
    const message = err.issues
      .map((i) => `${i.path.length ? `--${i.path.join(".")}` : "options"}: ${i.message}`)
      .join("; ");
    return { code: "invalid_input", message, exitCode: 2 };
  }
  if (isAppError(err)) return { code: err.code, message: err.message, exitCode: 1 };
  if (err instanceof DataDirInUseError || err instanceof RefusedError)
    return { code: err.code, message: err.message, exitCode: 1 };
  return { code: "internal_error", message: err instanceof Error ? err.message : String(err), exitCode: 1 };
}

/** evidence:verify runs offline: it opens no database and needs no key but the JWKS it is given. */
async function verifyCommand(
  args: ReturnType<typeof parse>,
  extra: string[],
  wantsJson: boolean,
): Promise<number> {
  const [file, more] = extra;
  if (!file)
    throw new UsageError("evidence:verify needs the package: evidence:verify FILE [--jwks FILE|URL]");
  if (more !== undefined) throw new UsageError(`Unexpected argument "${more}"`);
  const { jwks, ...rest } = args.options;
  const other = Object.keys(rest).find((k) => rest[k as keyof typeof rest] !== undefined);
  if (other) throw new UsageError(`evidence:verify does not take --${other}`);
  const result = await evidenceVerify(file, jwks);
  console.log(args.json ? JSON.stringify(result) : JSON.stringify(result, null, 2));
  if (result.ok) return 0;
  const message = `the package does not verify: ${result.problems.join("; ")}`;
  console.error(
    wantsJson ? JSON.stringify({ error: "evidence_not_verified", message }) : `error: ${message}`,
  );
  return 3;
}

/**
 * A writing command beside running servers (DATABASE_URL and REDIS_URL): listed as a write of
 * every organization while it runs and marked as a write of those its audit rows name once it has
 * (data-epochs.ts), so no server answers from memory what it changed. Embedded, no server runs
 * beside it (DataDirInUseError).
 */
async function asServersWrite<T>(
  redisUrl: string | undefined,
  db: Parameters<typeof dataWrites>[0]["db"],
  readOnly: boolean | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  if (readOnly || !redisUrl) return fn();
  const redis = createRedis(redisUrl);
  try {
    const writes: TDataWrites = dataWrites({
      db,
      store: new RateLimits(redis, "rl"),
      onError: (err) =>
        console.error(`warning: the servers' read caches were not told of this change: ${err.message}`),
    });
    return await asUnnamedWrite(writes, fn);
  } finally {
    redis.disconnect();
  }
}

async function main(argv: string[]): Promise<number> {
  const wantsJson = argv.includes("--json");
  try {
    const args = parse(argv);
    const [name, ...extra] = args.positionals;
    if (args.help || !name) {
      console.log(usage());
      return args.help ? 0 : 2;
    }
    if (name === "evidence:verify") return await verifyCommand(args, extra, wantsJson);
    if (!isCommandName(name)) throw new UsageError(`Unknown command "${name}"\n\n${usage()}`);
    if (extra.length > 0) throw new UsageError(`Unexpected argument "${extra[0]}"`);
    const run = COMMANDS[name].prepare(args.options);

    const env = readCliEnv();
    // Every audit row the CLI writes joins the organization's keyed chain, with the server's key.
    const auditKey = loadAuditKey(env);
    if (!env.databaseUrl) mkdirSync(env.dataDir, { recursive: true });
    // Embedded: refused at once (DataDirInUseError) while a server holds DATA_DIR; what the CLI
    // wrote beside it would be overwritten when the server closes the database.
    const handle = await openDb(
      env.databaseUrl
        ? { databaseUrl: env.databaseUrl, migrationDatabaseUrl: env.migrationDatabaseUrl, poolSize: 2 }
        : { dataDir: join(env.dataDir, "pg") },
    );
    try {
      await handle.migrate();
      // A writing command checks the key first; audit:verify reports what any key finds.
      if (!COMMANDS[name].readOnly && !(await auditKeyMatches(handle.db, auditKey))) {
        throw new RefusedError(
          "audit_key_mismatch",
          "The newest audit entry does not verify with this audit key (ENCRYPTION_KEY / AUDIT_HMAC_KEY, or " +
            "DATA_DIR/encryption.key): run the CLI with the server's keys (or, if they are, run audit:verify: " +
            "the entry may have been altered). Nothing was written.",
        );
      }
      setAuditKey(auditKey);
      const result = await asServersWrite(
        env.redisUrl,
        handle.db,
        COMMANDS[name].readOnly,
        (): Promise<TResult> => run(handle.db),
      );
      console.log(args.json ? JSON.stringify(result) : JSON.stringify(result, null, 2));
      const fault = COMMANDS[name].fault?.(result);
      if (fault) {
        console.error(
          wantsJson
            ? JSON.stringify({ error: fault.code, message: fault.message })
            : `error: ${fault.message}`,
        );
        return 3;
      }
      return 0;
    } finally {
      await handle.close();
    }
  } catch (err) {
    const { code, message, exitCode } = describe(err);
    console.error(wantsJson ? JSON.stringify({ error: code, message }) : `error: ${message}`);
    return exitCode;
  }
}

process.exitCode = await main(process.argv.slice(2));
