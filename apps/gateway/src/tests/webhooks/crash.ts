import type { Db } from "@posture/db";
import type { TJobQueue } from "@posture/platform";

export class ProcessKilled extends Error {
  constructor() {
    super("process killed");
  }
}

type TAny = Record<PropertyKey, unknown>;
const WRITES = new Set<PropertyKey>(["insert", "update", "delete"]);

/**
 * A database handle of a process that is killed right after a commit: once `diesAfter` (asked,
 * against the real database, after each transaction and each top-level write that committed)
 * says yes, every further use of the handle throws, as if the process had gone. Whatever the
 * code meant to do after that commit — record an event in a second transaction, dispatch it —
 * never happens; what survives is exactly what was committed.
 */
export function killedAfterCommit(db: Db, diesAfter: () => Promise<boolean> = async () => true) {
  let dead = false;
  const committed = async () => {
    if (await diesAfter()) dead = true;
  };
  const wrapBuilder = (b: TAny): TAny => {
    const proxy: TAny = new Proxy(b, {
      get(target, prop) {
        const v = target[prop];
        if (prop === "then") {
          return (ok: (v: unknown) => unknown, fail: (e: unknown) => unknown) =>
            (target as unknown as Promise<unknown>)
              .then(async (r) => {
                await committed();
                return r;
              })
              .then(ok, fail);
        }
        if (typeof v !== "function") return v;
        return (...args: unknown[]) => {
          const r = (v as (...a: unknown[]) => unknown).apply(target, args);
          if (r === target) return proxy;
          return r && typeof r === "object" && "then" in r ? wrapBuilder(r as TAny) : r;
        };
      },
    });
    return proxy;
  };
  const handle = new Proxy(db as unknown as TAny, {
    get(target, prop) {
      const v = target[prop];
      if (typeof v !== "function") return v;
      if (dead)
        return () => {
          throw new ProcessKilled();
        };
      if (prop === "transaction") {
        return async (...args: unknown[]) => {
          const r = await (v as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          await committed();
          return r;
        };
      }
      if (WRITES.has(prop))
        return (...args: unknown[]) => wrapBuilder((v as (...a: unknown[]) => TAny).apply(target, args));
      return (v as (...a: unknown[]) => unknown).bind(target);
    },
  }) as unknown as Db;
  return { db: handle, isDead: () => dead };
}

/** The queue of a killed process: nothing it would have dispatched ever leaves. */
export function deadQueue(real: TJobQueue): TJobQueue {
  return {
    ...real,
    enqueue: async () => {
      throw new ProcessKilled();
    },
  };
}
