import pg from "pg";

/** How much longer than the server's `statement_timeout` the client waits before giving up itself. */
export const CLIENT_TIMEOUT_MARGIN_MS = 1_000;

/** The bound of an interactive request's every query (DB_REQUEST_TIMEOUT_MS): 503 past it. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 2_000;

/**
 * How long one class of work lets a query run: `statementTimeoutMs` is the server's
 * `statement_timeout` (a live server cancels the statement, the connection stays usable),
 * `queryTimeoutMs` the client's own wait (a frozen server never cancels anything: past it the
 * connection is dropped). 0 disables either.
 */
export type TQueryBound = { statementTimeoutMs: number; queryTimeoutMs: number };

/**
 * The bound of interactive requests from one number: the client gives up at `timeoutMs`, the
 * server cancels a quarter earlier (at most CLIENT_TIMEOUT_MARGIN_MS), so a slow statement on a
 * live server ends as a clean cancel on a connection that is kept, and only a server that does not
 * answer at all costs a connection. 2000 → statement_timeout 1500 ms, client 2000 ms.
 */
export function requestBound(timeoutMs: number): TQueryBound {
  const ms = Math.max(0, Math.floor(timeoutMs));
  return {
    statementTimeoutMs: ms - Math.min(CLIENT_TIMEOUT_MARGIN_MS, Math.floor(ms / 4)),
    queryTimeoutMs: ms,
  };
}

/**
 * A query the client gave up on: PostgreSQL did not answer within the client-side bound (a frozen
 * server, a half-open connection). Its connection is destroyed, never reused. The message starts
 * like node-postgres's own `query_timeout` error, so both read the same in logs and in
 * `toWireError` (503 `service_unavailable`).
 */
export class QueryTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`Query read timeout: PostgreSQL did not answer within ${timeoutMs} ms`);
    this.name = "QueryTimeoutError";
  }
}

const SET_TIMEOUT = /^\s*set\s+(local\s+)?statement_timeout\s*(?:=|to)\s*'?(\d+)'?\s*;?\s*$/i;
const TX_END = /^\s*(commit|rollback|end|abort)\s*;?\s*$/i;

type TQueryCallback = (err: Error | null, res?: unknown) => void;
type TInternals = {
  connection: { stream: { destroy: () => void } };
  _activeQuery?: unknown;
  _queryQueue?: unknown[];
};

/** A pooled connection that knows whose bound it runs under while it is checked out. */
export type TBoundedClient = pg.PoolClient & { heldBound: TQueryBound | null };

/**
 * A pooled client whose every query is bounded on the client side too. `statement_timeout` is
 * enforced by the server, so it cannot end a wait on a server that does not answer at all (a
 * SIGSTOPped or swapping PostgreSQL, a connection whose packets vanish): without this a request
 * would hang for as long as the server is frozen. Past the bound the socket is destroyed — the
 * connection is in an unknown state (a `begin` may or may not have run), so it must never be
 * handed out again — and every query queued on it fails with QueryTimeoutError.
 *
 * Whose bound: the pool's own (`statementTimeoutMs`, `defaultBoundMs`), or, while a BoundPool
 * holds the connection (`heldBound`), that view's. The session's `statement_timeout` follows: the
 * first statement under another bound is preceded by `set statement_timeout` (one round trip, on
 * a connection outside any transaction), so a connection an interactive request left at 1.5 s
 * is back at the pool's value before a report or a job runs on it.
 *
 * A transaction that raises its `statement_timeout` with `allowLongStatements` (background jobs'
 * known long writes) raises the client bound with it, to that value plus
 * CLIENT_TIMEOUT_MARGIN_MS, until it commits or rolls back; `statement_timeout = 0` (migrations)
 * lifts it.
 */
export function boundedClientClass(
  statementTimeoutMs: number,
  defaultBoundMs: number,
  onStatement?: (text: string) => void,
) {
  return class BoundedClient extends pg.Client {
    heldBound: TQueryBound | null = null;
    /** The session's statement_timeout as last set (NaN: unknown, set it again). */
    private sessionStatementMs = statementTimeoutMs;
    /** A session-level `set statement_timeout` of the caller's own: its bound from then on. */
    private sessionBoundMs: number | null = null;
    private txBoundMs: number | null = null;
    private timedOutAfter = 0;

    constructor(config?: string | pg.ClientConfig) {
      super(config);
      // A socket that dies while the client is checked out makes node-postgres emit 'error'
      // (the pool listens only while a client is idle): the queries fail on their own; the
      // process must not.
      this.on("error", () => {});
    }

    private boundFor(text: string | undefined): number {
      const base = this.heldBound?.queryTimeoutMs ?? defaultBoundMs;
      const set = text ? SET_TIMEOUT.exec(text) : null;
      if (set) {
        const ms = Number(set[2]);
        const bound = ms === 0 ? 0 : Math.max(ms + CLIENT_TIMEOUT_MARGIN_MS, base);
        if (set[1]) this.txBoundMs = bound;
        else {
          this.sessionBoundMs = bound;
          this.sessionStatementMs = ms;
        }
      }
      const bound = this.txBoundMs ?? this.sessionBoundMs ?? base;
      if (text && TX_END.test(text)) this.txBoundMs = null;
      return bound;
    }

    /**
     * Sets the session's statement_timeout to the holder's before its statement, when it differs
     * and nothing else is in flight: outside a transaction a session SET takes effect at once and
     * cannot be rolled back, so what is remembered stays true.
     */
    private alignStatementTimeout(): void {
      const want = this.heldBound?.statementTimeoutMs ?? statementTimeoutMs;
      if (want === this.sessionStatementMs || this.sessionBoundMs !== null) return;
      const internals = this as unknown as TInternals;
      if (this.getTransactionStatus() !== "I" || internals._activeQuery || internals._queryQueue?.length)
        return;
      this.sessionStatementMs = want;
      const text = `set statement_timeout = ${want}`;
      if (onStatement) onStatement(text);
      // A failure here fails the statement behind it the same way; set it again next time.
      (super.query(text) as unknown as Promise<unknown>).catch(() => {
        this.sessionStatementMs = Number.NaN;
      });
    }

    // node-postgres's overloads (text or config, values, callback; or a Submittable) all pass
    // through here; only the completion is observed.
    override query(...args: unknown[]): never {
      const config = args[0] as string | { text?: string; submit?: unknown } | null | undefined;
      const text = typeof config === "string" ? config : config?.text;
      const submittable =
        config !== null && typeof config === "object" && typeof config.submit === "function";
      if (!(text && SET_TIMEOUT.test(text))) this.alignStatementTimeout();
      const bound = this.boundFor(text);
      if (onStatement && text) onStatement(text);
      const call = (rest: unknown[]) => (super.query as (...a: unknown[]) => unknown).apply(this, rest);
      if (bound <= 0 || submittable) return call(args) as never;
      // Started before the SET that may precede the statement: the bound covers both.
      const timer = setTimeout(() => {
        this.timedOutAfter = bound;
        (this as unknown as TInternals).connection.stream.destroy();
      }, bound);
      const translate = (err: Error) =>
        this.timedOutAfter ? new QueryTimeoutError(this.timedOutAfter) : err;
      const cbIndex = args.findIndex((a, i) => i > 0 && typeof a === "function");
      if (cbIndex > 0) {
        const cb = args[cbIndex] as TQueryCallback;
        const rest = [...args];
        rest[cbIndex] = (err: Error | null, res?: unknown) => {
          clearTimeout(timer);
          cb(err ? translate(err) : null, res);
        };
        return call(rest) as never;
      }
      return (call(args) as Promise<unknown>).then(
        (res) => {
          clearTimeout(timer);
          return res;
        },
        (err: Error) => {
          clearTimeout(timer);
          throw translate(err);
        },
      ) as never;
    }
  };
}

/** An error PostgreSQL sent (a SQLSTATE): the connection is still good. Anything else drops it. */
const isServerError = (err: unknown) => {
  const code = err instanceof Error ? (err as { code?: unknown }).code : undefined;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code);
};

/**
 * The pool seen under another bound: what drizzle is given for one class of work (interactive
 * requests). Same connections, same limit; a connection it checks out runs its statements under
 * `bound` until it goes back. Drizzle treats it as a pool (`connect()` for a transaction, `query()`
 * otherwise: its class name says Pool, which is what drizzle looks for).
 */
export class BoundPool {
  constructor(
    readonly pool: pg.Pool,
    readonly bound: TQueryBound,
  ) {}

  async connect(): Promise<TBoundedClient> {
    const client = (await this.pool.connect()) as TBoundedClient;
    client.heldBound = this.bound;
    return client;
  }

  async query(config: unknown, values?: unknown): Promise<unknown> {
    const client = await this.connect();
    let failure: unknown;
    try {
      return await (client.query as (c: unknown, v: unknown) => Promise<unknown>)(config, values);
    } catch (err) {
      failure = err;
      throw err;
    } finally {
      client.release(failure === undefined || isServerError(failure) ? undefined : (failure as Error));
    }
  }
}

/** Every connection the pool takes back runs under the pool's own bound again. */
export function resetBoundOnRelease(pool: pg.Pool): void {
  pool.on("release", (_err: Error | undefined, client: pg.PoolClient) => {
    (client as TBoundedClient).heldBound = null;
  });
}
