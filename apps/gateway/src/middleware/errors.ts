import type { NextFunction, Request, Response } from "express";
import { AppError, isServerFault, toWireError, type TLogger, type TWireError } from "@posture/platform";

export function sendWireError(res: Response, wire: TWireError): void {
  if (res.headersSent) return;
  res.status(wire.status);
  for (const [k, v] of Object.entries(wire.headers)) res.setHeader(k, v);
  res.json(wire.body);
}

/** Answers with the contract's body for anything thrown or built (an AppError, usually). */
export function sendError(res: Response, err: unknown): void {
  sendWireError(res, toWireError(err));
}

/** Body-parser failures carry a `type`; they are the client's fault, never a 500. */
function fromBodyParser(err: unknown): AppError | null {
  const type = (err as { type?: unknown } | null)?.type;
  if (type === "entity.too.large") return new AppError("payload_too_large", "Request body too large");
  if (type === "entity.parse.failed") return new AppError("invalid_input", "Request body is not valid JSON");
  if (type === "encoding.unsupported" || type === "charset.unsupported") {
    return new AppError("unsupported_media_type", "Unsupported body encoding");
  }
  return null;
}

export function errorHandler(log: TLogger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    const wire = toWireError(fromBodyParser(err) ?? err);
    if (isServerFault(wire)) log.error({ err, requestId: req.requestId }, "request failed");
    sendWireError(res, wire);
  };
}

export function notFoundHandler(_req: Request, res: Response): void {
  sendError(res, new AppError("not_found", "No such endpoint"));
}
