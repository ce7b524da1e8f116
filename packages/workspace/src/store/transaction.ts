import { allowLongStatements, JOB_STATEMENT_TIMEOUT_MS, type Db } from "@posture/db";

export type TOpenTransaction = {
  /** The open transaction; rejects if it could not be begun. */
  tx: Promise<Db>;
  /** Runs the last statements inside the transaction, then commits it. */
  commit: <T>(last: (tx: Db) => Promise<T>) => Promise<T>;
  /** Rolls back. Safe to call more than once, and after a failed commit. */
  rollback: () => Promise<void>;
};

class Rollback extends Error {}

/**
 * A transaction held open across a stream the caller drives (the scan's read of its source), so a
 * snapshot of any size is written piece by piece yet becomes visible to readers all at once.
 */
export function openTransaction(db: Db): TOpenTransaction {
  const started = deferred<Db>();
  const finish = deferred<(tx: Db) => Promise<unknown>>();
  // Rolled back before the transaction began: nobody awaits `finish`, which must not go unhandled.
  finish.promise.catch(() => {});
  let result: unknown;
  const done = db.transaction(async (tx) => {
    // A million-file snapshot's closing statements: past the per-request statement bound.
    await tx.execute(allowLongStatements(JOB_STATEMENT_TIMEOUT_MS));
    started.resolve(tx as unknown as Db);
    const last = await finish.promise;
    result = await last(tx as unknown as Db);
  });
  // A transaction that fails to begin (or rolls back) must not surface as an unhandled rejection.
  done.catch(() => {});
  const tx = Promise.race([started.promise, done.then(() => Promise.reject(new Error("transaction ended")))]);
  tx.catch(() => {});
  return {
    tx,
    commit: async <T>(last: (tx: Db) => Promise<T>) => {
      finish.resolve(last);
      await done;
      return result as T;
    },
    rollback: async () => {
      finish.reject(new Rollback("rolled back"));
      await done.catch(() => {});
    },
  };
}

function deferred<T>() {
  let resolve: (value: T) => void = () => {};
  let reject: (err: Error) => void = () => {};
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
