import {
  header as requestHeader,
  startFakeHttp,
  type TFakeHttpRequest,
  type TFakeHttpResponse,
} from "@posture/platform/testing";

// The tracker doubles: each provider's semantics on top of the platform's fake HTTP server.

/** A request as the fake received it: `body` is the raw text, `json` the parsed body. */
export type TRecordedRequest = TFakeHttpRequest;

/**
 * What the next request gets instead of the tracker's normal answer: an HTTP status (with an
 * optional Retry-After and body), or no answer at all until the fake is closed.
 */
export type TFault = { status: number; retryAfter?: string; body?: unknown } | { hang: true };

export type TFakeResponse = TFakeHttpResponse;

export type TFakeTracker = {
  /** Base address, e.g. http://127.0.0.1:54321 (no trailing slash). */
  url: string;
  /** Every request received, faulted ones included, oldest first. */
  requests: TRecordedRequest[];
  /** Queues a fault for the next request that arrives; several queue in order. */
  failNext(fault: TFault): void;
  close(): Promise<void>;
};

type THandler = (req: TRecordedRequest, baseUrl: string) => TFakeResponse;

/**
 * A tracker double on 127.0.0.1 and an OS-assigned port: records each request, applies queued
 * faults, otherwise answers through the provider's handler.
 */
export async function startFakeServer(
  handler: THandler,
  faultBody: (status: number) => unknown,
): Promise<TFakeTracker> {
  const server = await startFakeHttp({ handle: (req, { baseUrl }) => handler(req, baseUrl), faultBody });
  return { url: server.url, requests: server.requests, failNext: server.fail, close: server.close };
}

export function header(req: TRecordedRequest, name: string): string | undefined {
  return requestHeader(req, name);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
