// The embedded database (PGlite) runs one statement or transaction at a time, in this process:
// a scan's or an activity job's transaction holds it for seconds, and a request queued behind it
// waited for all of it, saying nothing (issue 33: 68 s for a trusted domain). The gate puts its
// own queue in front of PGlite's: interactive work goes ahead of background work that has not
// started yet, and waits at most its bound for what already runs; past it the request fails with
// DatabaseBusyError (503 with Retry-After) and is taken out of the queue, so it never runs later.

/** An interactive request gave up waiting for the embedded database (busy with background work). */
export class DatabaseBusyError extends Error {
  constructor(
    readonly waitedMs: number,
    /** What held the database: the work's kind and how long it had held it. */
    readonly holder: { interactive: boolean; heldMs: number },
  ) {
    // The prefix is what @posture/platform's wire error reads as "unavailable" (503, Retry-After).
    super(
      `Database busy: the embedded database is running ${holder.interactive ? "another request" : "background work (a scan or a job)"} ` +
        `for ${Math.round(holder.heldMs / 1000)} s; this request waited ${waitedMs} ms. Retry shortly, or run the service on PostgreSQL (DATABASE_URL).`,
    );
    this.name = "DatabaseBusyError";
  }
}

type TWaiter = {
  interactive: boolean;
  grant: () => void;
};

export type TGate = {
  /** Runs `work` alone; interactive work waits at most `waitMs` (0: as long as it takes). */
  run: <T>(work: () => Promise<T>, opts: { interactive: boolean; waitMs: number }) => Promise<T>;
  /** Waiting interactive and background callers, and whether something runs (for tests and metrics). */
  stats: () => { running: boolean; interactive: number; background: number };
};

export function createGate(now: () => number = Date.now): TGate {
  let holder: { interactive: boolean; since: number } | null = null;
  const interactive: TWaiter[] = [];
  const background: TWaiter[] = [];

  const next = () => {
    holder = null;
    const waiter = interactive.shift() ?? background.shift();
    waiter?.grant();
  };

  const acquire = (opts: { interactive: boolean; waitMs: number }): Promise<void> => {
    if (holder === null && interactive.length === 0 && background.length === 0) {
      holder = { interactive: opts.interactive, since: now() };
      return Promise.resolve();
    }
    const queue = opts.interactive ? interactive : background;
    const queuedAt = now();
    return new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const waiter: TWaiter = {
        interactive: opts.interactive,
        grant: () => {
          if (timer) clearTimeout(timer);
          holder = { interactive: opts.interactive, since: now() };
          resolve();
        },
      };
      queue.push(waiter);
      if (opts.waitMs > 0) {
        timer = setTimeout(() => {
          const at = queue.indexOf(waiter);
          if (at < 0) return;
          queue.splice(at, 1);
          const t = now();
          reject(
            new DatabaseBusyError(t - queuedAt, {
              interactive: holder?.interactive ?? false,
              heldMs: holder ? t - holder.since : 0,
            }),
          );
        }, opts.waitMs);
        timer.unref();
      }
    });
  };

  return {
    async run(work, opts) {
      await acquire(opts);
      try {
        return await work();
      } finally {
        next();
      }
    },
    stats: () => ({
      running: holder !== null,
      interactive: interactive.length,
      background: background.length,
    }),
  };
}

/** The part of PGlite's client that drizzle's PGlite session calls. */
export type TPgliteLike = {
  query: (...args: never[]) => Promise<unknown>;
  transaction: (fn: never) => Promise<unknown>;
};

/**
 * The client drizzle is given: PGlite's own, with `query` and `transaction` passing the gate.
 * Statements inside a transaction use the transaction's client, which PGlite hands the callback,
 * and never pass the gate again.
 */
export function gatedClient<C extends TPgliteLike>(
  client: C,
  gate: TGate,
  opts: { interactive: boolean; waitMs: number },
): C {
  return new Proxy(client, {
    // Every read goes to PGlite itself (its private fields do not survive a proxy receiver).
    get(target, prop) {
      if (prop === "query" || prop === "transaction") {
        const method: unknown = Reflect.get(target, prop, target);
        if (typeof method !== "function") return method;
        return (...args: unknown[]) =>
          gate.run(() => (method as (...a: unknown[]) => Promise<unknown>).apply(target, args), opts);
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
