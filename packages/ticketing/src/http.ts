import { AppError, parseRetryAfter, TargetRefusedError } from "@posture/platform";
import type { TTicketProvider } from "./types";

export const DEFAULT_TIMEOUT_MS = 10_000;
/** A Retry-After longer than this is not waited for: the request fails instead. */
export const MAX_RETRY_AFTER_MS = 5_000;
const MAX_BODY_BYTES = 1024 * 1024;
const USER_AGENT = "posture-ticketing/1.0";

const LABELS: Record<TTicketProvider, string> = { jira: "Jira", github: "GitHub", linear: "Linear" };

export type TTrackerClient = {
  provider: TTicketProvider;
  fetch: typeof fetch;
  timeoutMs: number;
  /** Strings that must never appear in an error message (the token and its encodings). */
  secrets: string[];
};

export type TTrackerRequest = {
  method: "GET" | "POST" | "PATCH";
  url: string;
  headers: Record<string, string>;
  body?: unknown;
};

export type TTrackerResponse = { status: number; headers: Headers; json: unknown };

function redact(client: TTrackerClient, text: string): string {
  let out = text;
  for (const secret of client.secrets) {
    // Very short "secrets" would shred every message; real tokens are far longer.
    if (secret.length >= 6) out = out.split(secret).join("[redacted]");
  }
  return out;
}

function shorten(text: string, max = 160): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
}

/**
 * The one way a tracker failure leaves this package. The token never appears: messages are
 * built from status codes and the tracker's own short error text, with every secret redacted.
 */
export function upstreamError(
  client: TTrackerClient,
  kind: "rejected" | "failed",
  reason: string,
  upstreamStatus?: number,
): AppError {
  const label = LABELS[client.provider];
  const message = redact(
    client,
    `${label} ${kind === "rejected" ? "rejected the request" : "failed"}: ${shorten(reason)}`,
  );
  const extra: Record<string, unknown> = { provider: client.provider };
  if (upstreamStatus !== undefined) extra.upstreamStatus = upstreamStatus;
  return new AppError("upstream_unavailable", message, extra);
}

/** An HTTP error status as an AppError, with the tracker's message when it gave one. */
export function statusError(client: TTrackerClient, res: TTrackerResponse, detail?: string): AppError {
  const reason = detail ? `HTTP ${res.status} (${detail})` : `HTTP ${res.status}`;
  return upstreamError(client, res.status >= 500 ? "failed" : "rejected", reason, res.status);
}

/**
 * Creating an issue is not idempotent on any of the trackers (none takes an idempotency key), so
 * a request is repeated only when the tracker said plainly that it did not process it: 429, or
 * 503 with a Retry-After. A timeout, a dropped connection or any other 5xx may have created the
 * issue already, and a retry would file a duplicate ticket; those fail at once instead.
 */
export function retryDelayMs(client: TTrackerClient, res: TTrackerResponse): number | null {
  const retryAfter = parseRetryAfter(res.headers.get("retry-after"));
  // GitHub's secondary rate limit answers 403 with a Retry-After instead of 429.
  const githubThrottle = client.provider === "github" && res.status === 403 && retryAfter !== null;
  if (res.status === 429 || githubThrottle) {
    const delay = retryAfter ?? 1000;
    return delay <= MAX_RETRY_AFTER_MS ? delay : null;
  }
  if (res.status === 503 && retryAfter !== null) return retryAfter <= MAX_RETRY_AFTER_MS ? retryAfter : null;
  return null;
}

async function readCapped(res: Response): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      throw new Error("body_too_large");
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function parseJson(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function describeNetworkError(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown } } | undefined)?.cause;
  return typeof cause?.code === "string" ? `network error (${cause.code})` : "network error";
}

async function sendOnce(client: TTrackerClient, req: TTrackerRequest): Promise<TTrackerResponse> {
  const headers: Record<string, string> = { "user-agent": USER_AGENT, ...req.headers };
  if (req.body !== undefined) headers["content-type"] = "application/json";
  const signal = AbortSignal.timeout(client.timeoutMs);
  try {
    const res = await client.fetch(req.url, {
      method: req.method,
      headers,
      body: req.body === undefined ? undefined : JSON.stringify(req.body),
      // A POST silently turned into a GET by a 301/302 would "succeed" without creating anything.
      redirect: "manual",
      signal,
    });
    const text = await readCapped(res);
    return { status: res.status, headers: res.headers, json: parseJson(text) };
  } catch (err) {
    // The SSRF guard refused the tracker's address (resolved now, at call time): tenant input.
    if (err instanceof TargetRefusedError) {
      const message = `Tracker URL refused: ${err.message}`;
      throw new AppError("invalid_input", message, { details: [{ path: "baseUrl", message }] });
    }
    if (signal.aborted) throw upstreamError(client, "failed", `timed out after ${client.timeoutMs} ms`);
    if (err instanceof Error && err.message === "body_too_large") {
      throw upstreamError(client, "failed", "response body too large");
    }
    throw upstreamError(client, "failed", describeNetworkError(err));
  }
}

/** Sends a request, repeating it once only where {@link retryDelayMs} says it is safe. */
export async function send(client: TTrackerClient, req: TTrackerRequest): Promise<TTrackerResponse> {
  const first = await sendOnce(client, req);
  const delay = retryDelayMs(client, first);
  if (delay === null) return first;
  await new Promise((resolve) => setTimeout(resolve, delay));
  return sendOnce(client, req);
}

export function isSuccess(res: TTrackerResponse): boolean {
  return res.status >= 200 && res.status < 300;
}

export function malformed(client: TTrackerClient, res: TTrackerResponse): AppError {
  return upstreamError(client, "failed", "unexpected response from the tracker", res.status);
}

export function trimBaseUrl(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, "");
}
