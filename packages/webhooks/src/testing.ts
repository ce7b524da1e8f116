import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { verify as octokitVerify } from "@octokit/webhooks-methods";
import { Webhook } from "standardwebhooks";

// Test helpers: a real HTTP receiver on 127.0.0.1 and verification by independent libraries.

export type TReceived = { method: string; url: string; headers: IncomingHttpHeaders; body: string };
export type TReply = (req: TReceived, index: number, res: ServerResponse) => number | "hang";

export async function startReceiver(reply: TReply = () => 200) {
  const received: TReceived[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const r = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      received.push(r);
      const status = reply(r, received.length - 1, res);
      if (status === "hang") return;
      if (!res.headersSent) res.statusCode = status;
      res.end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
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
