import { createHash } from "node:crypto";
import type { NextFunction, Request, Response } from "express";
import type { Db } from "@posture/db";
import { AppError, decryptSecret, encryptSecret, type TLogger } from "@posture/platform";
import { sendError } from "./errors";
import { claimKey, completeKey, releaseKey } from "./idempotency-store";

export const IDEMPOTENCY_HEADER = "Idempotency-Key";
export const REPLAYED_HEADER = "Idempotent-Replayed";

const VALID_KEY = /^[\x20-\x7e]{1,255}$/;
// Responses larger than this are not kept: a replay is for small JSON results, not downloads.
const MAX_STORED_BYTES = 1_000_000;

/** JSON with object keys sorted at every depth, so `{a,b}` and `{b,a}` are the same request. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const obj = value as Record<string, unknown>;
    const fields = Object.keys(obj)
      .filter((k) => obj[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`);
    return `{${fields.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** What makes two requests "the same": method, path (with any query) and the parsed JSON body. */
export function requestFingerprint(method: string, url: string, body: unknown): string {
  return createHash("sha256")
    .update(`${method}\n${url}\n${canonicalJson(body)}`)
    .digest("hex");
}

// A result worth replaying: not a server fault and not a transient limit, which a retry should
// be allowed to run into again.
const isReplayable = (status: number) => status < 500 && status !== 429;

/**
 * Stored results are sealed with the server's encryption key (AES-256-GCM), bound to their scope
 * and key: creation results carry secrets (a new API key, a webhook signing secret), and nothing
 * secret is stored in plaintext. A replay decrypts and returns the body exactly as first sent.
 */
type TSealed = { sealed: string };
const sealContext = (scope: string, key: string) => `idempotency\n${scope}\n${key}`;

export function sealResponse(encryptionKey: Buffer, scope: string, key: string, body: unknown): TSealed {
  return { sealed: encryptSecret(encryptionKey, JSON.stringify(body), sealContext(scope, key)) };
}

/** The stored body, or undefined when it cannot be opened (written under another key, or tampered with). */
export function openResponse(encryptionKey: Buffer, scope: string, key: string, stored: unknown): unknown {
  if (stored === null || typeof stored !== "object" || typeof (stored as TSealed).sealed !== "string") {
    return undefined;
  }
  try {
    return JSON.parse(decryptSecret(encryptionKey, (stored as TSealed).sealed, sealContext(scope, key)));
  } catch {
    return undefined;
  }
}

/**
 * What a storage failure may log: the error's class and SQLSTATE, never its message — a driver's
 * "Failed query … params: …" message would carry the parameters it was given.
 */
const errorSummary = (err: unknown) => ({
  name: err instanceof Error ? err.name : typeof err,
  code: err !== null && typeof err === "object" && "code" in err ? String(err.code) : undefined,
  causeCode:
    err instanceof Error && err.cause !== null && typeof err.cause === "object" && "code" in err.cause
      ? String(err.cause.code)
      : undefined,
});

type TFinish = (status: number, body: Buffer, contentType: string) => Promise<void>;

/**
 * Buffers what the handlers write and calls `onFinish` before the response is flushed, so the
 * client never sees a result that a retry could not replay. A response the client abandoned
 * before it was written releases the key.
 */
function captureResponse(res: Response, onFinish: TFinish, onAbandon: () => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let ended = false;
  const collect = (chunk: unknown, encoding: unknown) => {
    if (chunk === undefined || chunk === null || typeof chunk === "function") return;
    const buf =
      typeof chunk === "string"
        ? Buffer.from(chunk, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8")
        : Buffer.from(chunk as Uint8Array);
    size += buf.length;
    if (size <= MAX_STORED_BYTES) chunks.push(buf);
  };
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  res.write = ((...args: unknown[]) => {
    collect(args[0], args[1]);
    return write(...args);
  }) as Response["write"];
  res.end = ((...args: unknown[]) => {
    if (ended) return end(...args);
    ended = true;
    collect(args[0], args[1]);
    const body = size <= MAX_STORED_BYTES ? Buffer.concat(chunks) : Buffer.alloc(0);
    const contentType = String(res.getHeader("content-type") ?? "");
    void onFinish(res.statusCode, body, contentType).finally(() => end(...args));
    return res;
  }) as Response["end"];
  res.on("close", () => {
    if (!ended) onAbandon();
  });
}

function parseJson(body: Buffer, contentType: string): { ok: true; value: unknown } | { ok: false } {
  if (!/application\/(.+\+)?json/i.test(contentType) || body.length === 0) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(body.toString("utf8")) };
  } catch {
    return { ok: false };
  }
}

/**
 * `Idempotency-Key` for authenticated POSTs: the first request with a key runs and its status
 * and JSON body are stored; a retry with the same key and the same request gets that result
 * again (`Idempotent-Replayed: true`) without running anything. Keys are scoped to the
 * organization and credential, so two callers never see each other's results.
 */
export function idempotency(db: Db, log: TLogger, encryptionKey: Buffer) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const key = req.get(IDEMPOTENCY_HEADER);
    if (req.method !== "POST" || key === undefined) return next();
    // Anonymous requests go on to their 401 (or their public handler): authentication first.
    const principal = req.principal;
    if (!principal) return next();
    if (!VALID_KEY.test(key)) {
      return sendError(
        res,
        new AppError("invalid_input", "Invalid Idempotency-Key", {
          details: [{ path: IDEMPOTENCY_HEADER, message: "must be 1 to 255 printable ASCII characters" }],
        }),
      );
    }

    const scope = `${principal.org.id}:${principal.credentialId}`;
    const requestHash = requestFingerprint(req.method, req.originalUrl, req.body);
    const claim = await claimKey(db, scope, key, requestHash);

    if (!claim.owned) {
      const { existing } = claim;
      if (existing.requestHash !== requestHash) {
        return sendError(
          res,
          new AppError("conflict", "This Idempotency-Key was already used for a different request"),
        );
      }
      if (existing.statusCode === null) {
        return sendError(
          res,
          new AppError("conflict", "A request with this Idempotency-Key is still in progress"),
        );
      }
      const body = openResponse(encryptionKey, scope, key, existing.responseBody);
      if (body === undefined) {
        return sendError(
          res,
          new AppError("conflict", "The result stored for this Idempotency-Key can no longer be replayed"),
        );
      }
      res.setHeader(REPLAYED_HEADER, "true");
      res.status(existing.statusCode).json(body);
      return;
    }

    const release = () =>
      releaseKey(db, scope, key).catch((err: unknown) =>
        log.error({ err: errorSummary(err), requestId: req.requestId }, "could not release idempotency key"),
      );
    captureResponse(
      res,
      async (status, body, contentType) => {
        const parsed = parseJson(body, contentType);
        try {
          if (isReplayable(status) && parsed.ok) {
            await completeKey(db, scope, key, status, sealResponse(encryptionKey, scope, key, parsed.value));
          } else await releaseKey(db, scope, key);
        } catch (err) {
          log.error(
            { err: errorSummary(err), requestId: req.requestId },
            "could not store idempotent response",
          );
        }
      },
      () => void release(),
    );
    next();
  };
}
