import { randomBytes } from "node:crypto";
import { text, timestamp } from "drizzle-orm/pg-core";

// Opaque, prefixed ids: the prefix tells an operator what an id points at, the 20 random
// bytes (base32, 32 chars) make them unguessable across tenants.
const ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";

// Random bytes drawn 4 KiB at a time: one call into the CSPRNG per ~200 ids, not per id (a first
// scan of a large tenant names hundreds of thousands of findings).
const POOL_BYTES = 4_000;
let pool = Buffer.alloc(0);
let used = 0;

function randomChunk(size: number): Buffer {
  if (used + size > pool.length) {
    pool = randomBytes(POOL_BYTES);
    used = 0;
  }
  const chunk = pool.subarray(used, used + size);
  used += size;
  return chunk;
}

export function newId(prefix: string): string {
  const bytes = randomChunk(20);
  let out = "";
  for (let i = 0; i < 20; i += 5) {
    // 5 bytes -> 8 base32 characters; 40 bits are exact in a double.
    const high = bytes[i] ?? 0;
    const low =
      (((bytes[i + 1] ?? 0) << 24) |
        ((bytes[i + 2] ?? 0) << 16) |
        ((bytes[i + 3] ?? 0) << 8) |
        (bytes[i + 4] ?? 0)) >>>
      0;
    const chunk = high * 2 ** 32 + low;
    for (let k = 7; k >= 0; k--) out += ALPHABET[Math.floor(chunk / 2 ** (k * 5)) % 32];
  }
  return `${prefix}_${out}`;
}

export const idColumn = (prefix: string) =>
  text("id")
    .primaryKey()
    .$defaultFn(() => newId(prefix));

export const createdAt = () =>
  timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow();

export const tsColumn = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });
