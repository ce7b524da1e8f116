import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import type { TDataEpoch } from "@posture/platform";

/** The encodings a cached answer is kept in besides identity, as the compression middleware makes them. */
export type TEncoding = "br" | "gzip";

export type TCachedAnswer = {
  /** The data epoch the answer was read at (data-epochs.ts): served only while it is current. */
  epoch: TDataEpoch;
  storedAt: number;
  body: Buffer;
  /** The strong entity tag of the identity body (conditional.ts). */
  tag: string;
  /** The headers the procedure set besides the ones every response gets (Link, a Deprecation…). */
  headers: ReadonlyArray<readonly [string, string | string[]]>;
  encoded: Partial<Record<TEncoding, Buffer>>;
  bytes: number;
};

export type TReadCacheOptions = {
  /** Bodies and their compressed variants together; 0 turns the cache off. */
  maxBytes: number;
  /** The longest an answer is served, whatever the epochs say (clock-derived fields age). */
  ttlMs: number;
};

/** Compressed the way the compression middleware would (brotli quality 4, gzip's default). */
const ENCODERS: Record<TEncoding, (body: Buffer) => Buffer> = {
  br: (body) => brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } }),
  gzip: (body) => gzipSync(body),
};

/** The entry's object, its headers and the Map's slot, roughly: counted with the body. */
const ENTRY_OVERHEAD_BYTES = 256;

/**
 * A small body is a slice of Node's shared 8 kB allocation pool: kept as it is, it would keep the
 * whole slab alive. Kept bodies get an allocation of their own.
 */
function unpooled(body: Buffer): Buffer {
  if (body.byteOffset === 0 && body.buffer.byteLength === body.length) return body;
  const own = Buffer.allocUnsafeSlow(body.length);
  body.copy(own);
  return own;
}

/**
 * A gateway process's JSON GET answers (issue 34), keyed by credential and request and checked
 * against the organization's data epoch on every use: an entry read at another epoch, or older
 * than `ttlMs`, is never served. Bounded by bytes, least recently used first out: a process
 * serving a thousand organizations holds at most `maxBytes` of them. Compressed variants are made
 * on first demand and kept with the body, so a hit costs no compression.
 */
export class ReadCache {
  private readonly entries = new Map<string, TCachedAnswer>();
  private bytes = 0;

  constructor(private readonly o: TReadCacheOptions) {}

  get enabled(): boolean {
    return this.o.maxBytes > 0 && this.o.ttlMs > 0;
  }

  /** Bytes held now (bodies and variants). */
  get size(): number {
    return this.bytes;
  }

  get count(): number {
    return this.entries.size;
  }

  get(key: string, epoch: TDataEpoch, now: number): TCachedAnswer | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.epoch !== epoch || now - entry.storedAt >= this.o.ttlMs) {
      this.drop(key, entry);
      return undefined;
    }
    // Most recently used last: Map keeps insertion order.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry;
  }

  set(key: string, answer: Omit<TCachedAnswer, "encoded" | "bytes">): void {
    if (!this.enabled) return;
    const old = this.entries.get(key);
    if (old) this.drop(key, old);
    const bytes = answer.body.length + key.length + ENTRY_OVERHEAD_BYTES;
    // One answer may not take more than a sixteenth: a huge page must not empty the cache.
    if (bytes > this.o.maxBytes / 16) return;
    this.entries.set(key, { ...answer, body: unpooled(answer.body), encoded: {}, bytes });
    this.bytes += bytes;
    this.evict();
  }

  /** The body in this encoding, made once per entry. */
  encoded(key: string, entry: TCachedAnswer, encoding: TEncoding): Buffer {
    const have = entry.encoded[encoding];
    if (have) return have;
    const made = ENCODERS[encoding](entry.body);
    if (this.entries.get(key) === entry) {
      entry.encoded[encoding] = made;
      entry.bytes += made.length;
      this.bytes += made.length;
      this.evict();
    }
    return made;
  }

  private drop(key: string, entry: TCachedAnswer): void {
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }

  private evict(): void {
    for (const [key, entry] of this.entries) {
      if (this.bytes <= this.o.maxBytes) return;
      this.drop(key, entry);
    }
  }
}
