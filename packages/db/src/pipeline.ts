/**
 * Overlaps producing bulk statements with running them: `send` starts a write behind the ones
 * already sent and returns once the write before it has finished, so the caller builds the next
 * batch while the database executes this one (the client's CPU and PostgreSQL's, side by side)
 * and at most two batches are ever held. Writes run one after another, in order, which is what a
 * transaction's single connection needs. The first failure is thrown by the next `send` or by
 * `drain`, and no write is started after it.
 */
export type TWritePipeline = {
  send: (write: () => Promise<void>) => Promise<void>;
  /** Waits for every write sent; throws the first failure. */
  drain: () => Promise<void>;
};

export function createWritePipeline(): TWritePipeline {
  let last: Promise<void> = Promise.resolve();
  return {
    send: async (write) => {
      const previous = last;
      last = previous.then(write);
      // A failure surfaces through the next send or drain; it must not also go unhandled.
      last.catch(() => {});
      await previous;
    },
    drain: () => last,
  };
}
