import { createHash } from "node:crypto";
import { Writable } from "node:stream";
import { and, asc, eq, gte } from "drizzle-orm";
import { evidenceChunks, type Db } from "@posture/db";

/** 1 MiB: big enough that a package is a few hundred rows, small enough to never strain memory. */
export const CHUNK_BYTES = 1 << 20;

/**
 * Writes a stream into evidence_chunks as it arrives, 1 MiB per row, and hashes it on the way.
 * Each write waits for its insert, so a slow database slows the archiver instead of filling memory.
 */
export class ChunkSink extends Writable {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private seq = 0;
  private readonly hash = createHash("sha256");
  size = 0;

  constructor(
    private readonly db: Db,
    private readonly jobId: string,
  ) {
    super();
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    this.size += chunk.length;
    this.hash.update(chunk);
    if (this.pendingBytes < CHUNK_BYTES) {
      cb();
      return;
    }
    this.flushFull().then(() => cb(), cb);
  }

  override _final(cb: (err?: Error | null) => void): void {
    this.flush(this.pendingBytes).then(() => cb(), cb);
  }

  get sha256(): string {
    return this.hash.copy().digest("hex");
  }

  private async flushFull(): Promise<void> {
    while (this.pendingBytes >= CHUNK_BYTES) await this.flush(CHUNK_BYTES);
  }

  private async flush(bytes: number): Promise<void> {
    if (bytes === 0) return;
    const all = Buffer.concat(this.pending, this.pendingBytes);
    const data = all.subarray(0, bytes);
    const rest = all.subarray(bytes);
    this.pending = rest.length > 0 ? [Buffer.from(rest)] : [];
    this.pendingBytes = rest.length;
    await this.db
      .insert(evidenceChunks)
      .values({ jobId: this.jobId, seq: this.seq++, data: Buffer.from(data) });
  }
}

/** The stored package, in order, a few chunks per query: what a download streams to the client. */
export async function* readChunks(db: Db, jobId: string, batch = 4): AsyncGenerator<Uint8Array> {
  let next = 0;
  for (;;) {
    const rows = await db
      .select({ seq: evidenceChunks.seq, data: evidenceChunks.data })
      .from(evidenceChunks)
      .where(and(eq(evidenceChunks.jobId, jobId), gte(evidenceChunks.seq, next)))
      .orderBy(asc(evidenceChunks.seq))
      .limit(batch);
    for (const r of rows) yield r.data;
    if (rows.length < batch) return;
    next = (rows.at(-1)?.seq ?? next) + 1;
  }
}
