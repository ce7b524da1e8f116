import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { AppError, deriveAuditKey, parseEncryptionKey, type TAuditKey } from "@posture/platform";
import type { TCliEnv } from "./env";

/**
 * The audit chain's key, found as the server finds it: AUDIT_HMAC_KEY, else derived from
 * ENCRYPTION_KEY, else (embedded mode) from the key the server keeps in DATA_DIR/encryption.key.
 * Rows the CLI writes are keyed with it like the gateway's and the scheduler's; without it they
 * would break every chain they join.
 */
export function loadAuditKey(env: TCliEnv): TAuditKey {
  const invalid = (message: string) => new AppError("invalid_input", message);
  if (env.auditHmacKey || env.encryptionKey) {
    try {
      const encryption = env.encryptionKey ? parseEncryptionKey(env.encryptionKey) : Buffer.alloc(32);
      return deriveAuditKey(encryption, env.auditHmacKey);
    } catch (err) {
      throw invalid(err instanceof Error ? err.message : String(err));
    }
  }
  if (env.databaseUrl) {
    throw invalid(
      "ENCRYPTION_KEY (or AUDIT_HMAC_KEY) is required with DATABASE_URL: the CLI writes audit rows with the server's key",
    );
  }
  // Embedded mode: the server generates this file on first start; so does the CLI if it comes first.
  mkdirSync(env.dataDir, { recursive: true });
  const file = join(env.dataDir, "encryption.key");
  if (!existsSync(file)) {
    try {
      writeFileSync(file, randomBytes(32).toString("hex"), { mode: 0o600, flag: "wx" });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err; // written meanwhile: use it
    }
  }
  return deriveAuditKey(parseEncryptionKey(readFileSync(file, "utf8").trim()));
}
