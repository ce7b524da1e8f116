import type { NextFunction, Request, Response } from "express";
import {
  INPUT_LIMITS,
  inspectJson,
  invalidInput,
  stringProblem,
  type TInputProblem,
} from "@posture/platform";
import { sendError } from "./errors";

/** Query parameters: string or repeated string values (Express 5's "simple" parser never nests). */
function queryProblem(query: Record<string, unknown>): TInputProblem | null {
  const entries = Object.entries(query);
  if (entries.length > INPUT_LIMITS.maxQueryParams) {
    return {
      path: "",
      message: `the query string must not have more than ${INPUT_LIMITS.maxQueryParams} parameters`,
    };
  }
  for (const [name, value] of entries) {
    const nameProblem = stringProblem(name);
    if (nameProblem) return { path: name, message: `parameter name ${nameProblem}` };
    for (const v of Array.isArray(value) ? value : [value]) {
      const problem = typeof v === "string" ? stringProblem(v) : null;
      if (problem) return { path: name, message: problem };
    }
  }
  return null;
}

/**
 * tRPC's GET calls carry their input as JSON in `?input=`, so escapes such as `\u0000` only
 * appear once it is parsed; anything that does not parse is left to tRPC's own 400.
 */
function trpcInputProblem(req: Request, query: Record<string, unknown>): TInputProblem | null {
  const raw = query.input;
  if (!req.baseUrl.startsWith("/trpc") || typeof raw !== "string") return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return null;
  }
  const problem = inspectJson(parsed);
  return problem && { ...problem, path: problem.path ? `input.${problem.path}` : "input" };
}

/**
 * The one gate every JSON input passes before credentials, idempotency, validation or the
 * database see it: body and query string are walked once (iteratively) against the platform's
 * input limits — nesting depth, total size in values, NUL and unpaired surrogates in any string
 * or key. Like malformed JSON, a violation is a 400 `invalid_input` naming the path.
 */
export function sanitizeInput(req: Request, res: Response, next: NextFunction): void {
  const query = req.query as Record<string, unknown>;
  const problem =
    queryProblem(query) ??
    trpcInputProblem(req, query) ??
    (req.body !== undefined ? inspectJson(req.body) : null);
  if (problem) return sendError(res, invalidInput(problem, "Request input is not acceptable"));
  next();
}
