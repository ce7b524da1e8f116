import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { pinnedLookup, type TVettedTarget } from "@posture/platform";

export const DEFAULT_TIMEOUT_MS = 10_000;
// Receivers answer with whatever they like; we only need the status, so read a little and drop it.
const MAX_RESPONSE_BYTES = 4096;

export type TSendResult = { statusCode: number } | { statusCode: null; error: string };

/**
 * One POST to a vetted target, connecting only to its vetted addresses. Redirects are not
 * followed (node:http never does); the whole exchange is bounded by `timeoutMs`.
 */
export function sendWebhook(
  target: TVettedTarget,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number = DEFAULT_TIMEOUT_MS,
  /** The whole attempt's budget, named in the error (DNS may have used part of it already). */
  budgetMs: number = timeoutMs,
): Promise<TSendResult> {
  const request = target.url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<TSendResult>((resolve) => {
    let statusCode: number | null = null;
    let done = false;
    const finish = (result: TSendResult) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.destroy();
      resolve(result);
    };
    const req = request(
      {
        method: "POST",
        protocol: target.url.protocol,
        hostname: target.hostname,
        port: target.url.port || undefined,
        path: `${target.url.pathname}${target.url.search}`,
        // A fresh connection per attempt: a pooled socket could outlive the check it passed.
        agent: false,
        lookup: pinnedLookup(target.addresses),
        headers: {
          ...headers,
          "Content-Type": "application/json",
          "Content-Length": String(Buffer.byteLength(body)),
          "User-Agent": "Posture-Webhooks/1",
        },
      },
      (res: IncomingMessage) => {
        statusCode = res.statusCode ?? 0;
        const code = statusCode;
        let received = 0;
        res.on("data", (chunk: Buffer) => {
          received += chunk.length;
          if (received >= MAX_RESPONSE_BYTES) finish({ statusCode: code });
        });
        res.on("end", () => finish({ statusCode: code }));
        res.on("error", () => finish({ statusCode: code }));
      },
    );
    const timer = setTimeout(() => {
      finish(
        statusCode === null ? { statusCode: null, error: `timed out after ${budgetMs} ms` } : { statusCode },
      );
    }, timeoutMs);
    req.on("error", (err: NodeJS.ErrnoException) => {
      finish({ statusCode: null, error: err.code ? `${err.code}: ${err.message}` : err.message });
    });
    req.end(body);
  });
}
