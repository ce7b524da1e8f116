import { z } from "zod";

/**
 * A file a procedure hands back instead of JSON (a PDF, a ZIP). The gateway streams it raw with
 * Content-Type and an attachment Content-Disposition; the procedure's guards (auth, plan, role,
 * rate limits) have run exactly as for any other call. Procedures that answer with one declare
 * `download` in their meta, which is how the gateway and the OpenAPI document find them.
 */
export type TDownload = {
  kind: "download";
  filename: string;
  contentType: string;
  /** The bytes, or a function producing them in order (read from storage as they are sent). */
  body: Buffer | (() => AsyncIterable<Uint8Array>);
  /** Content-Length, when known. */
  size?: number;
};

/** Meta of a procedure that may answer with a file: its content types, and whether JSON is negotiable. */
export type TDownloadMeta = {
  contentTypes: readonly string[];
  /**
   * The procedure may also answer JSON (e.g. an evidence job still PENDING). With `negotiate`, the
   * gateway sets the input's `format` to "json" when the request's Accept prefers JSON.
   */
  negotiate?: boolean;
};

export function download(d: Omit<TDownload, "kind">): TDownload {
  return { kind: "download", ...d };
}

export function isDownload(v: unknown): v is TDownload {
  return typeof v === "object" && v !== null && (v as { kind?: unknown }).kind === "download";
}

/** Output schema of a procedure that answers with a file: documented as binary. */
export const ZDownload = z
  .custom<TDownload>(isDownload, { message: "expected a download" })
  .meta({ type: "string", format: "binary", description: "The file's bytes" });
