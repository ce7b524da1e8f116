import { randomBytes } from "node:crypto";
import { text, timestamp } from "drizzle-orm/pg-core";

// Opaque, prefixed ids: the prefix tells an operator what an id points at, the 20 random
// bytes (base32, 32 chars) make them unguessable across tenants.
const ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";

export function newId(prefix: string): string {
  const bytes = randomBytes(20);
  let out = "";
  for (let i = 0; i < bytes.length; i += 5) {
    // 5 bytes -> 8 base32 characters
    let chunk = 0n;
    for (let j = 0; j < 5; j++) chunk = (chunk << 8n) | BigInt(bytes[i + j] ?? 0);
    for (let k = 7; k >= 0; k--) out += ALPHABET[Number((chunk >> BigInt(k * 5)) & 31n)];
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
