import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import { verify as octokitVerify } from "@octokit/webhooks-methods";
import { startFakeHttp } from "@posture/platform/testing";
import { Webhook } from "standardwebhooks";
import type { Db } from "@posture/db";
import type { TJobQueue } from "@posture/platform";
import type { TEventType } from "./event-types";
import { withEvents, type TEmitInput } from "./services/emit-event";

// Test helpers: a webhook receiver on the platform's fake HTTP server, and verification by
// independent libraries.

export type TReceived = { method: string; url: string; headers: IncomingHttpHeaders; body: string };
export type TReply = (req: TReceived, index: number, res: ServerResponse) => number | "hang";

export async function startReceiver(reply: TReply = () => 200) {
  const received: TReceived[] = [];
  const server = await startFakeHttp({
    handle: (req, { index, res }) => {
      const r = { method: req.method, url: req.url, headers: req.headers, body: req.body };
      received.push(r);
      const status = reply(r, index, res);
      return status === "hang" ? "hang" : { status, text: "ok" };
    },
  });
  return { port: server.port, url: `${server.url}/hook`, received, close: server.close };
}

export type TReceiver = Awaited<ReturnType<typeof startReceiver>>;

const header = (h: IncomingHttpHeaders, name: string) => {
  const v = h[name];
  return Array.isArray(v) ? (v[0] ?? "") : (v ?? "");
};

/** The spec's X-Service-Signature, checked the way GitHub receivers check theirs. */
export async function verifyServiceSignature(secret: string, r: TReceived): Promise<boolean> {
  return octokitVerify(secret, r.body, header(r.headers, "x-service-signature"));
}

/** The Standard Webhooks headers, checked by the reference library; returns the parsed body. */
export function verifyStandardWebhook(secret: string, r: TReceived): unknown {
  return new Webhook(secret).verify(r.body, {
    "webhook-id": header(r.headers, "webhook-id"),
    "webhook-timestamp": header(r.headers, "webhook-timestamp"),
    "webhook-signature": header(r.headers, "webhook-signature"),
  });
}

export async function waitFor<T>(
  probe: () => Promise<T | undefined | null | false>,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error("waitFor: timed out");
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * An event on its own, for tests of delivery: production code announces a change only through
 * `withEvents`, in the change's own transaction.
 */
export async function emitEvent<T extends TEventType>(
  db: Db,
  jobs: TJobQueue,
  input: TEmitInput<T>,
): Promise<{ eventId: string; deliveryIds: string[] }> {
  return withEvents(db, jobs, (_tx, emit) => emit(input));
}
