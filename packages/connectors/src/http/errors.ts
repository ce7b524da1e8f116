import { SourceUnavailableError } from "../types";

/**
 * The source answered with an error that is neither an auth refusal nor worth retrying (400, 404…).
 * It is a SourceUnavailableError for callers that only care whether the source could be read; the
 * status lets an adapter treat an expected 404 (a user without a OneDrive) as "nothing there".
 */
export class SourceHttpError extends SourceUnavailableError {
  readonly status: number;

  constructor(message: string, status: number) {
    super(message);
    this.name = "SourceHttpError";
    this.status = status;
  }
}

/** The human message out of a Google, Microsoft Graph or OAuth 2.0 error body. */
export function apiErrorMessage(body: unknown, fallback: string): string {
  if (typeof body !== "object" || body === null) return fallback;
  const record = body as Record<string, unknown>;
  const error = record.error;
  if (typeof error === "object" && error !== null) {
    const message = (error as Record<string, unknown>).message;
    const code = (error as Record<string, unknown>).code;
    if (typeof message === "string" && message !== "") return message;
    if (typeof code === "string") return code;
  }
  if (typeof record.error_description === "string") return record.error_description;
  if (typeof error === "string") return error;
  return fallback;
}
