import { randomBytes } from "node:crypto";
import type { TTestResponse } from "../testing";

/** A client address of its own (documentation range), so a test's counters start at zero. */
export const freshIp = () =>
  `2001:db8:${randomBytes(2).toString("hex")}:${randomBytes(2).toString("hex")}::${randomBytes(2).toString("hex")}`;

export const errorCode = (res: TTestResponse): unknown =>
  (res.body as { error?: unknown } | undefined)?.error;

/** Runs `n` requests in parallel and returns them in order. */
export function times<T>(n: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: n }, (_, i) => fn(i)));
}
