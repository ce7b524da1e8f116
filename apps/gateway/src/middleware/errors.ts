import type { NextFunction, Request, Response } from "express";
import { AppError, isServerFault, toWireError, type TLogger, type TWireError } from "@posture/platform";

export function sendWireError(res: Response, wire: TWireError): void {
  if (res.headersSent) return;
  res.locals.errorCode = wire.body.error;
  res.status(wire.status);
  for (const [k, v] of Object.entries(wire.headers)) res.setHeader(k, v);
  res.json(wire.body);
}

/** Answers with the contract's body for anything thrown or built (an AppError, usually). */
export function sendError(res: Response, err: unknown): void {
  sendWireError(res, toWireError(err));
}

/**
 * Body-parser failures carry a `type` and a 4xx `status` (bad JSON, wrong charset, a corrupt
 * gzip stream, a body over the limit), the router's a 4xx URIError for a path parameter it cannot
 * decode: they are the client's fault, never a 500.
 */
function fromBodyParser(err: unknown): AppError | null {
  const { type, status, expose } = (err ?? {}) as { type?: unknown; status?: unknown; expose?: unknown };
  if (typeof status !== "number" || status < 400 || status >= 500) return null;
  // Express's router cannot decode a path parameter (`/evidence/%E0%A4%A`): the URL is the client's.
  if (err instanceof URIError) return new AppError("invalid_input", "Malformed percent-encoding in the URL");
  // http-errors marks client errors `expose`; a corrupt gzip stream arrives without a `type`.
  if (typeof type !== "string" && expose !== true) return null;
  if (type === "entity.too.large" || status === 413) {
    return new AppError("payload_too_large", "Request body too large");
  }
  if (type === "encoding.unsupported" || type === "charset.unsupported" || status === 415) {
    return new AppError("unsupported_media_type", "Unsupported body encoding");
  }
  if (type === "entity.parse.failed") return new AppError("invalid_input", "Request body is not valid JSON");
  return new AppError("invalid_input", "Request body could not be read");
}

/**
 * A dependency outage is one warning line per request (its cause, no stack: an outage is not a
 * bug, and a stack per request would drown the log); anything else that is or may be the
 * service's fault is logged with its stack.
 */
export function logFault(
  log: TLogger,
  wire: TWireError,
  err: unknown,
  fields: { requestId: string; path?: string | undefined },
): void {
  if (wire.body.error === "service_unavailable") {
    log.warn({ ...fields, cause: rootCause(err) }, "dependency unavailable");
  } else if (isServerFault(wire)) {
    log.error({ ...fields, err }, "request failed");
  }
}

/** The innermost cause's message ("connect ECONNREFUSED …"), not a wrapper's SQL text. */
function rootCause(err: unknown): string {
  let e = err;
  for (let i = 0; i < 8 && e instanceof Error && e.cause instanceof Error; i++) e = e.cause;
  return e instanceof Error ? `${(e as { code?: unknown }).code ?? e.name}: ${e.message}` : String(e);
}

export function errorHandler(log: TLogger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    const wire = toWireError(fromBodyParser(err) ?? err);
    logFault(log, wire, err, { requestId: req.requestId });
    sendWireError(res, wire);
  };
}

export function notFoundHandler(_req: Request, res: Response): void {
  sendError(res, new AppError("not_found", "No such endpoint"));
}
