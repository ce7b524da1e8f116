import { sql } from "drizzle-orm";
import type { Db } from "@posture/db";
import type { TCredentialKind } from "./principal";

// lastUsedAt / lastSeenAt move at most this often per credential.
export const TOUCH_INTERVAL_MS = 60_000;
const MAX_PENDING = 10_000;

/**
 * `lastUsedAt` of API keys and `lastSeenAt` of sessions, written in batches off the request
 * path: a request only records the time in memory; every `flushMs` one statement per table
 * writes what was recorded. The times are exact to the flush interval.
 */
export class CredentialTouches {
  private readonly written = new Map<string, number>();
  private readonly pending: Record<TCredentialKind, Map<string, number>> = {
    api_key: new Map(),
    session: new Map(),
  };
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly onError: (err: unknown) => void,
    flushMs = 5_000,
  ) {
    this.timer = setInterval(() => void this.flush(), flushMs);
    this.timer.unref();
  }

  /** `stored`: the time the database holds (from the lookup), when this process knows it. */
  record(kind: TCredentialKind, id: string, now: number, stored?: Date | null): void {
    if (stored !== undefined && !this.written.has(id)) this.written.set(id, stored?.getTime() ?? 0);
    const last = this.written.get(id) ?? 0;
    if (now - last < TOUCH_INTERVAL_MS) return;
    this.written.set(id, now);
    this.pending[kind].set(id, now);
    if (this.pending.api_key.size + this.pending.session.size >= MAX_PENDING) void this.flush();
  }

  /** Writes what is pending; concurrent calls wait for the same write. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.write());
    return this.flushing;
  }

  private async write(): Promise<void> {
    for (const kind of ["api_key", "session"] as const) {
      const batch = this.pending[kind];
      if (batch.size === 0) continue;
      const rows = JSON.stringify([...batch].map(([id, at]) => ({ id, at: new Date(at).toISOString() })));
      batch.clear();
      try {
        await this.db.execute(
          kind === "api_key"
            ? sql`update api_keys k set last_used_at = v.at
                from json_to_recordset(${rows}::json) as v(id text, at timestamptz)
                where k.id = v.id and (k.last_used_at is null or k.last_used_at < v.at)`
            : sql`update sessions s set last_seen_at = v.at
                from json_to_recordset(${rows}::json) as v(id text, at timestamptz)
                where s.id = v.id and s.last_seen_at < v.at`,
        );
      } catch (err) {
        this.onError(err);
      }
    }
    // Forget credentials not used for a while, so the map stays bounded.
    if (this.written.size > MAX_PENDING * 10) this.written.clear();
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
