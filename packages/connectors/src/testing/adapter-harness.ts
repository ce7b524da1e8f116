import { type THttpOptions } from "../http/client";

// What the adapter, client and demo tests share: draining a streamed listing, and a sleep that
// records each back-off delay instead of waiting it out.

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** Transport options whose sleep records each back-off delay (in ms) and returns at once. */
export function recordingSleep(http: THttpOptions = {}): { delays: number[]; http: THttpOptions } {
  const delays: number[] = [];
  return { delays, http: { ...http, sleep: async (ms) => void delays.push(ms) } };
}
