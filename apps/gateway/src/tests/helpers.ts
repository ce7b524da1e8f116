import type { TTestResponse } from "../testing";

export { randomClientIp as freshIp } from "../testing";

export const errorCode = (res: TTestResponse): unknown =>
  (res.body as { error?: unknown } | undefined)?.error;

/** Runs `n` requests in parallel and returns them in order. */
export function times<T>(n: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: n }, (_, i) => fn(i)));
}
