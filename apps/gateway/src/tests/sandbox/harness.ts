import { expect } from "vitest";
import {
  startReceiver,
  verifyServiceSignature,
  verifyStandardWebhook,
  waitFor,
  type TReceived,
  type TReceiver,
} from "@posture/webhooks/testing";
import type { TTestGateway } from "../../testing";
import { freshIp } from "../helpers";

export type TRun = {
  id: string;
  kind: string;
  status: "QUEUED" | "COMPLETE" | "FAILED";
  change: Record<string, unknown> | null;
  scans: Array<{ connectorId: string; scanId: string; status: string; kind: string; findingsNew: number }>;
  error: string | null;
};
export type TDelivered = { event: string; data: Record<string, unknown>; id: string; raw: TReceived };

type TAuth = { key?: string; cookie?: string };

/** One request with a client address of its own: the tests poll, and a client's budget is 60 a minute. */
export async function call(gw: TTestGateway, method: string, path: string, auth: TAuth, body?: unknown) {
  return gw.request(method, path, { ...auth, ip: freshIp(), ...(body === undefined ? {} : { body }) });
}

/** A sandbox made over HTTP by a real organization's owner, with a session of the owner in it. */
export async function makeSandbox(gw: TTestGateway, partner = false) {
  const home = await gw.createActor({ plan: "business" });
  const res = await call(gw, "POST", "/api/sandbox", { cookie: home.cookie }, { partner });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const sandbox = res.body as { id: string; isSandbox: boolean; isPartner: boolean; apiKey: { key: string } };
  const cookie = await gw.createSession(sandbox.id, home.user.id);
  return { home, sandbox, key: sandbox.apiKey.key, cookie };
}

/** A receiver subscribed to `events` in the organization of `cookie`, and what it was sent. */
export async function subscribe(gw: TTestGateway, cookie: string, events: string[]) {
  const receiver = await startReceiver();
  const res = await call(gw, "POST", "/api/webhooks", { cookie }, { url: receiver.url, events });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const { secret } = res.body as { secret: string };
  return { receiver, secret };
}

/** Every delivery the receiver got, each checked against both signatures before it is read. */
export async function deliveredSigned(receiver: TReceiver, secret: string): Promise<TDelivered[]> {
  const out: TDelivered[] = [];
  for (const raw of receiver.received) {
    expect(await verifyServiceSignature(secret, raw)).toBe(true);
    const body = verifyStandardWebhook(secret, raw) as Omit<TDelivered, "raw">;
    out.push({ ...body, raw });
  }
  return out;
}

/** Waits for deliveries matching `want`, all signed. */
export async function waitForEvents(
  receiver: TReceiver,
  secret: string,
  want: (e: TDelivered) => boolean,
  count = 1,
  timeoutMs = 60_000,
): Promise<TDelivered[]> {
  return waitFor(async () => {
    const hits = (await deliveredSigned(receiver, secret)).filter(want);
    return hits.length >= count ? hits : null;
  }, timeoutMs);
}

export async function startScenario(gw: TTestGateway, key: string, kind: string) {
  const res = await call(gw, "POST", "/api/sandbox/scenarios", { key }, { kind });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body as { id: string; kind: string; status: string; orgId: string; connectorId: string };
}

/** Polls a run until its job has finished; fails the test if the run failed. */
export async function settled(gw: TTestGateway, key: string, id: string): Promise<TRun> {
  const run = await waitFor(async () => {
    const res = await call(gw, "GET", `/api/sandbox/scenarios/${id}`, { key });
    // A loaded machine's scan can hold the pool for a moment: the API says so with a 503; ask again.
    if (res.status === 503) return null;
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const r = res.body as TRun;
    return r.status === "QUEUED" ? null : r;
  }, 180_000);
  expect(run.status, JSON.stringify(run)).toBe("COMPLETE");
  return run;
}
