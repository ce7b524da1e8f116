import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from "node:crypto";
import { hash as argon2Hash, verify as argon2Verify, type Algorithm } from "@node-rs/argon2";
import { createHashSlots } from "./hash-slots";

// argon2id at OWASP's minimum: m=19 MiB, t=2, p=1. Stored as the PHC string
// ("$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>"), which carries its own parameters: a hash made
// with weaker ones (or the earlier scrypt format) still verifies, and is replaced at sign-in.
export const ARGON2_PARAMS = {
  algorithm: 2 as Algorithm, // Argon2id (a const enum: not importable as a value here)
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
} as const;

// Two hashes at once (≤ 38 MiB), up to 64 sign-ins waiting: see hash-slots.ts.
const withSlot = createHashSlots(2, 64);

export function hashPassword(password: string): Promise<string> {
  return withSlot(() => argon2Hash(password, ARGON2_PARAMS));
}

const CURRENT_PREFIX = `$argon2id$v=19$m=${ARGON2_PARAMS.memoryCost},t=${ARGON2_PARAMS.timeCost},p=${ARGON2_PARAMS.parallelism}$`;

export type TPasswordCheck = { valid: boolean; needsRehash: boolean };

/** Verifies against any supported stored format; `needsRehash` when it is not today's parameters. */
export async function checkPassword(password: string, stored: string): Promise<TPasswordCheck> {
  const needsRehash = !stored.startsWith(CURRENT_PREFIX);
  if (stored.startsWith("$argon2")) {
    const valid = await withSlot(() => argon2Verify(stored, password).catch(() => false));
    return { valid, needsRehash };
  }
  if (stored.startsWith("scrypt$")) return { valid: await verifyLegacyScrypt(password, stored), needsRehash };
  return { valid: false, needsRehash };
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  return (await checkPassword(password, stored)).valid;
}

// Verified against when the e-mail is unknown: the same algorithm and parameters as a real
// account's, so both failures cost the same work.
let dummy: Promise<string> | undefined;
export function dummyPasswordHash(): Promise<string> {
  return (dummy ??= hashPassword(randomBytes(16).toString("hex")));
}

// The format before argon2id: "scrypt$N$r$p$<salt b64>$<hash b64>" (N=2^15, 32 MiB).
function scrypt(password: string, salt: Buffer, keylen: number, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCb(password, salt, keylen, opts, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

async function verifyLegacyScrypt(password: string, stored: string): Promise<boolean> {
  const [, n, r, p, salt, hash] = stored.split("$");
  if (!n || !r || !p || !salt || !hash) return false;
  const N = Number(n);
  // Only the parameters this service ever wrote; a stored row cannot ask for a huge allocation.
  if (N > 2 ** 15 || Number(r) !== 8 || Number(p) !== 1) return false;
  const expected = Buffer.from(hash, "base64");
  const actual = await withSlot(() =>
    scrypt(password, Buffer.from(salt, "base64"), expected.length, {
      N,
      r: 8,
      p: 1,
      maxmem: 64 * 1024 * 1024,
    }),
  );
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** A hash in the old scrypt format, for tests of the transparent upgrade. */
export async function legacyScryptHash(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, 32, { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
  return ["scrypt", 2 ** 15, 8, 1, salt.toString("base64"), hash.toString("base64")].join("$");
}
