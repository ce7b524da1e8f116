import { hash } from "node:crypto";

// Every generated item gets its own small PRNG, seeded from (workspace seed, stream, index):
// item i can be produced without producing items 0..i-1, which is what lets a 100,000-file
// workspace stream in constant memory and a rescan reproduce the same item byte for byte.

export type TSeedWords = readonly [number, number, number, number];

export type TRng = {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** A raw 32-bit unsigned word, for identifiers. */
  word(): number;
};

export const STREAMS = {
  user: 1,
  file: 2,
  drive: 3,
  grant: 4,
  activity: 5,
  revision: 6,
  mutation: 7,
  app: 8,
  mfa: 9,
  fileTouch: 10,
  userTouch: 11,
  grantTouch: 12,
  lifetime: 13,
} as const;

export function seedWords(seed: string): TSeedWords {
  const digest = hash("sha256", seed, "buffer");
  return [digest.readUInt32LE(0), digest.readUInt32LE(4), digest.readUInt32LE(8), digest.readUInt32LE(12)];
}

/** murmur3's finaliser: a cheap, well-mixing 32-bit integer hash. */
export function mix32(value: number): number {
  let h = value | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A stateless hash of (seed, stream, a, b) in [0, 1): used where a whole PRNG would be waste. */
export function hash01(words: TSeedWords, stream: number, a: number, b: number): number {
  const h = mix32(
    words[0] ^ mix32(Math.imul(stream, 0x9e3779b1) ^ mix32(a ^ mix32(Math.imul(b, 0x27d4eb2f) + 1))),
  );
  return h / 4294967296;
}

/** FNV-1a: constants (catalog client ids) that must not depend on the workspace seed. */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** sfc32. A class, not closures: one is made per generated item, so it must be cheap. */
class Sfc32 implements TRng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(a: number, b: number, c: number, d: number) {
    this.a = a;
    this.b = b;
    this.c = c;
    this.d = d;
    // Warm-up rounds spread the seed differences across all four words.
    for (let i = 0; i < 12; i++) this.word();
  }

  word(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    const c = (this.c << 21) | (this.c >>> 11);
    this.c = (c + t) | 0;
    return t >>> 0;
  }

  next(): number {
    return this.word() / 4294967296;
  }

  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return pickAt(items, this.int(items.length));
  }
}

export function rngFor(words: TSeedWords, stream: number, index: number): TRng {
  return new Sfc32(
    (words[0] ^ mix32(stream)) >>> 0,
    (words[1] ^ mix32(index + 0x632be5ab)) >>> 0,
    (words[2] ^ mix32(Math.imul(index, 0x9e3779b1) ^ stream)) >>> 0,
    (words[3] ^ index) >>> 0,
  );
}

export function pickAt<T>(items: readonly T[], index: number): T {
  const item = items[index];
  if (item === undefined) throw new Error(`pickAt: index ${index} outside a list of ${items.length}`);
  return item;
}

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const HEX = "0123456789abcdef";

const CODES = {
  base64url: [...BASE64URL].map((c) => c.charCodeAt(0)),
  base32: [...BASE32].map((c) => c.charCodeAt(0)),
  hex: [...HEX].map((c) => c.charCodeAt(0)),
};
const BITS = { base64url: 6, base32: 5, hex: 4 };
// Reused character-code scratch: one string per call instead of one per character.
const scratch: number[] = [];

/** `length` characters of `alphabet` (a power-of-two size up to 64) drawn from the rng. */
export function randomString(rng: TRng, length: number, alphabet: "base64url" | "base32" | "hex"): string {
  const codes = CODES[alphabet];
  const bits = BITS[alphabet];
  const mask = (1 << bits) - 1;
  let w = 0;
  let left = 0;
  scratch.length = length;
  for (let i = 0; i < length; i++) {
    if (left < bits) {
      w = rng.word();
      left = 32;
    }
    scratch[i] = codes[w & mask] ?? 0;
    w >>>= bits;
    left -= bits;
  }
  return String.fromCharCode(...scratch);
}

export function guid(rng: TRng): string {
  const h = randomString(rng, 32, "hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20)}`;
}
