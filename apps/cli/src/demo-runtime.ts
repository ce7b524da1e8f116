import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  AppError,
  loadEvidenceSigner,
  parseEncryptionKey,
  setEvidenceSigner,
  type TLogger,
  type TRuntime,
} from "@posture/platform";
import type { TCliEnv } from "./env";

/**
 * What `demo:seed` runs the demo's history with, as the server would: the server's encryption
 * key (ENCRYPTION_KEY, else the embedded DATA_DIR/encryption.key, written by the audit-key check
 * before any command runs), so that what the seed encrypts the server can read.
 */
export function demoRuntime(env: TCliEnv): TRuntime {
  let raw = env.encryptionKey;
  const file = join(env.dataDir, "encryption.key");
  if (!raw && !env.databaseUrl && existsSync(file)) raw = readFileSync(file, "utf8").trim();
  if (!raw)
    throw new AppError(
      "invalid_input",
      "ENCRYPTION_KEY is required with DATABASE_URL to seed the demo history",
    );
  const encryptionKey = parseEncryptionKey(raw);
  // The seed builds evidence packages: signed with the key the server will publish.
  setEvidenceSigner(
    loadEvidenceSigner({
      signingKey: env.evidenceSigningKey,
      previousKeys: env.evidenceSigningKeysPrevious,
      databaseUrl: env.databaseUrl,
      dataDir: env.dataDir,
      encryptionKey,
    }),
  );
  // Links in the seeded events point at the server's default address.
  return {
    encryptionKey,
    publicUrl: "http://localhost:3000",
    webhookAllowPrivateTargets: false,
  };
}

/** Warnings and errors only, on stderr: stdout carries the command's one JSON object. */
export function demoLog(): TLogger {
  const write = (level: string) => (obj: object, msg?: string) => {
    const err = (obj as { err?: unknown }).err;
    const detail = err instanceof Error ? { ...obj, err: err.message } : obj;
    process.stderr.write(`${JSON.stringify({ level, msg, ...detail })}\n`);
  };
  return { info: () => {}, debug: () => {}, warn: write("warn"), error: write("error") };
}
