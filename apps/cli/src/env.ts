import { resolveDataDir } from "@posture/db";

// The only place the CLI reads process.env.
export type TCliEnv = {
  databaseUrl: string | undefined;
  /** The schema owner's URL: migrations run with it, commands with DATABASE_URL (an app role). */
  migrationDatabaseUrl: string | undefined;
  dataDir: string;
  /** The server's key: the CLI writes audit rows with the same keyed chain (see audit-key.ts). */
  encryptionKey: string | undefined;
  auditHmacKey: string | undefined;
  /** The evidence signing key and the previous public keys, as the server has them (the demo seed signs). */
  evidenceSigningKey: string | undefined;
  evidenceSigningKeysPrevious: string | undefined;
  /** The servers' Redis: a writing command marks the data epochs their read caches check. */
  redisUrl: string | undefined;
};

export function readCliEnv(source: NodeJS.ProcessEnv = process.env): TCliEnv {
  return {
    databaseUrl: source.DATABASE_URL || undefined,
    migrationDatabaseUrl: source.MIGRATION_DATABASE_URL || undefined,
    dataDir: resolveDataDir(source.DATA_DIR || ".data", source),
    encryptionKey: source.ENCRYPTION_KEY || undefined,
    auditHmacKey: source.AUDIT_HMAC_KEY || undefined,
    evidenceSigningKey: source.EVIDENCE_SIGNING_KEY || undefined,
    evidenceSigningKeysPrevious: source.EVIDENCE_SIGNING_KEYS_PREVIOUS || undefined,
    redisUrl: source.REDIS_URL || undefined,
  };
}
