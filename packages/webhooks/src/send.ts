import { OutboundNetworkError, pinnedRequest, type TVettedTarget } from "@posture/platform";

export const DEFAULT_TIMEOUT_MS = 10_000;

export type TSendResult = { statusCode: number } | { statusCode: null; error: string };

/**
 * One POST to a vetted target through the platform's one outbound client (`pinnedRequest`:
 * only the vetted addresses, no redirects). Only the status matters: the attempt ends when it
 * arrives; the whole exchange is bounded by `timeoutMs`.
 */
export async function sendWebhook(
  target: TVettedTarget,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number = DEFAULT_TIMEOUT_MS,
  /** The whole attempt's budget, named in the error (DNS may have used part of it already). */
  budgetMs: number = timeoutMs,
): Promise<TSendResult> {
  try {
    const res = await pinnedRequest(target, {
      method: "POST",
      headers: {
        ...headers,
        "Content-Type": "application/json",
        "User-Agent": "Posture-Webhooks/1",
      },
      body: Buffer.from(body, "utf8"),
      timeoutMs,
      maxResponseBytes: 0,
      read: "status",
    });
    return { statusCode: res.status };
  } catch (err) {
    if (err instanceof OutboundNetworkError && err.code === "ETIMEDOUT")
      return { statusCode: null, error: `timed out after ${budgetMs} ms` };
    if (err instanceof OutboundNetworkError)
      return { statusCode: null, error: `${err.code}: ${err.message}` };
    return { statusCode: null, error: err instanceof Error ? err.message : String(err) };
  }
}
