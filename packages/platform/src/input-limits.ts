import { AppError } from "./errors";

/**
 * What any JSON input must satisfy before a handler, a hash or the database sees it. PostgreSQL
 * text refuses NUL, an unpaired UTF-16 surrogate cannot be encoded as UTF-8, and unbounded
 * nesting turns every recursive consumer (validation, hashing, jsonb) into a stack overflow.
 */
export const INPUT_LIMITS = {
  /** Objects and arrays nested deeper than this are refused (the deepest real input is ~4). */
  maxDepth: 32,
  /** Object members and array elements, counted over the whole document. */
  maxNodes: 10_000,
  /** Query string parameters per request. */
  maxQueryParams: 64,
} as const;

export type TInputProblem = { path: string; message: string };

// NUL anywhere, a high surrogate not followed by a low one, or a low one not preceded by a high one.
const BAD_CHARACTER = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why a string cannot be stored as PostgreSQL text, or null when it can. */
export function stringProblem(s: string): string | null {
  const m = BAD_CHARACTER.exec(s);
  if (!m) return null;
  return m[0] === "\u0000"
    ? "must not contain a NUL character"
    : "must not contain an unpaired UTF-16 surrogate";
}

const joinPath = (path: string, key: string | number) => (path === "" ? String(key) : `${path}.${key}`);

/**
 * Walks a parsed JSON value without recursion (so its own depth cannot overflow the stack) and
 * returns the first problem: a bad string or object key, nesting beyond `maxDepth`, more than
 * `maxNodes` members, or a `__proto__` key (a prototype-pollution vector in naive merges).
 */
export function inspectJson(value: unknown, limits = INPUT_LIMITS): TInputProblem | null {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: "", depth: 0 }];
  let nodes = 0;
  while (stack.length > 0) {
    const item = stack.pop();
    if (!item) break;
    const v = item.value;
    if (typeof v === "string") {
      const problem = stringProblem(v);
      if (problem) return { path: item.path, message: problem };
      continue;
    }
    if (v === null || typeof v !== "object") continue;
    if (item.depth >= limits.maxDepth) {
      return { path: item.path, message: `must not be nested deeper than ${limits.maxDepth} levels` };
    }
    const entries: Array<[string | number, unknown]> = Array.isArray(v)
      ? v.map((x, i) => [i, x])
      : Object.entries(v as Record<string, unknown>);
    nodes += entries.length;
    if (nodes > limits.maxNodes) {
      return { path: item.path, message: `must not hold more than ${limits.maxNodes} values in total` };
    }
    for (const [key, child] of entries) {
      const path = joinPath(item.path, key);
      if (typeof key === "string") {
        const problem = key === "__proto__" ? "is not an allowed key" : stringProblem(key);
        if (problem) return { path, message: `key ${problem}` };
      }
      stack.push({ value: child, path, depth: item.depth + 1 });
    }
  }
  return null;
}

/** The contract's 400 for an input problem. */
export function invalidInput(problem: TInputProblem, message = "Input validation failed"): AppError {
  return new AppError("invalid_input", message, { details: [problem] });
}
