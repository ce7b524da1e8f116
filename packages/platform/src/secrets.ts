import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

// AES-256-GCM envelope for secrets at rest: "v1:<iv>:<tag>:<ciphertext>", base64 parts.
// The version prefix leaves room for key rotation.
// `aad` (additional authenticated data) binds a ciphertext to its context (e.g. the row it belongs
// to): decrypting it under another context fails, so envelopes cannot be swapped between rows.
export function encryptSecret(key: Buffer, plaintext: string, aad?: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  if (aad !== undefined) cipher.setAAD(Buffer.from(aad, "utf8"));
  const ct = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return ["v1", iv.toString("base64"), cipher.getAuthTag().toString("base64"), ct.toString("base64")].join(
    ":",
  );
}

export function decryptSecret(key: Buffer, envelope: string, aad?: string): string {
  const [version, iv, tag, ct] = envelope.split(":");
  if (version !== "v1" || !iv || !tag || ct === undefined) throw new Error("unrecognised secret envelope");
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64"));
  if (aad !== undefined) decipher.setAAD(Buffer.from(aad, "utf8"));
  decipher.setAuthTag(Buffer.from(tag, "base64"));
  return Buffer.concat([decipher.update(Buffer.from(ct, "base64")), decipher.final()]).toString("utf8");
}

export function parseEncryptionKey(raw: string): Buffer {
  const key = /^[0-9a-f]{64}$/i.test(raw) ? Buffer.from(raw, "hex") : Buffer.from(raw, "base64");
  if (key.length !== 32) throw new Error("ENCRYPTION_KEY must be 32 bytes, as 64 hex characters or base64");
  return key;
}
