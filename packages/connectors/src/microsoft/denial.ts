import { SourceAuthError } from "../types";

/** The Graph message of a 403 (a permission or licence refused), or null for any other error. */
export function denial(error: unknown): string | null {
  if (!(error instanceof SourceAuthError)) return null;
  return /\(HTTP 403\)$/.test(error.message) ? error.message : null;
}
