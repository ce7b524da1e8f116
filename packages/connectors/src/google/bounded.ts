/**
 * Runs `run` for each input, at most `concurrency` at a time, and yields their items as they come:
 * a slow input (one user with a huge Drive, one throttled user) holds one slot, never the others.
 * Each running listing has at most one item requested ahead, so nothing is buffered beyond that.
 * A listing that throws ends the whole merge (after the others are closed).
 */
export async function* mergeBounded<TIn, TOut>(
  inputs: AsyncIterable<TIn>,
  concurrency: number,
  run: (input: TIn) => AsyncIterable<TOut>,
): AsyncGenerator<TOut> {
  type TSlot = {
    iterator: AsyncIterator<TOut>;
    next: Promise<{ slot: TSlot; result: IteratorResult<TOut> }>;
  };
  const source = inputs[Symbol.asyncIterator]();
  const running = new Set<TSlot>();
  let sourceDone = false;
  const advance = (slot: TSlot) => {
    slot.next = slot.iterator.next().then((result) => ({ slot, result }));
    // A listing failing while another wins the race is still seen by the next race; not unhandled.
    slot.next.catch(() => undefined);
  };
  const fill = async () => {
    while (!sourceDone && running.size < Math.max(1, concurrency)) {
      const input = await source.next();
      if (input.done) {
        sourceDone = true;
        break;
      }
      const slot = { iterator: run(input.value)[Symbol.asyncIterator]() } as TSlot;
      advance(slot);
      running.add(slot);
    }
  };
  try {
    await fill();
    while (running.size > 0) {
      const { slot, result } = await Promise.race([...running].map((s) => s.next));
      if (result.done) {
        running.delete(slot);
        await fill();
        continue;
      }
      advance(slot);
      yield result.value;
    }
  } finally {
    // Early exit (the consumer stopped, or one listing failed): close what is still open.
    await Promise.allSettled([...running].map((s) => s.iterator.return?.()));
    if (!sourceDone) await source.return?.();
  }
}
