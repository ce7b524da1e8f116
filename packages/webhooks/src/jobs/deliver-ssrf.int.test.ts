import { describe, expect, it } from "vitest";
import type { TResolver, TRuntime } from "@posture/platform";
import { emitEvent } from "../testing";
import { deliverWebhook } from "./deliver";
import { silent, useDeliveryFixtures, violation } from "./delivery-fixtures";

const { db, runtime, receiver, org, recordingQueue, subscribe, delivery } = useDeliveryFixtures();

describe("SSRF at delivery time", () => {
  const strict: TRuntime = { ...runtime, webhookAllowPrivateTargets: false };

  it("refuses a name that now resolves to loopback, and sends nothing", async () => {
    const orgId = await org();
    const rx = await receiver();
    await subscribe(orgId, `http://localhost:${rx.port}/hook`);
    const { q } = recordingQueue();
    const { deliveryIds } = await emitEvent(db(), q, { orgId, type: "policy.violation", data: violation });
    const id = deliveryIds[0] ?? "";
    expect(
      await deliverWebhook({ db: db(), runtime: strict, jobs: q, log: silent, backoff: () => null }, id),
    ).toBe("abandoned");
    const row = await delivery(id);
    expect(row).toMatchObject({ status: "abandoned", attempts: 1, lastStatusCode: null });
    expect(row?.lastError).toBe("target refused: host localhost does not resolve to a public address");
    expect(rx.received).toHaveLength(0);
  });

  it("re-checks DNS: a name that was public at creation and rebinds to 127.0.0.1 is refused", async () => {
    const orgId = await org();
    const rx = await receiver();
    let answer = "93.184.216.34";
    const resolve: TResolver = async () => [{ address: answer, family: 4 }];
    await subscribe(orgId, `http://rebind.example:${rx.port}/hook`, ["policy.violation"], {
      resolve,
      allowPrivateTargets: false,
    });
    answer = "127.0.0.1";
    const { q } = recordingQueue();
    const { deliveryIds } = await emitEvent(db(), q, { orgId, type: "policy.violation", data: violation });
    const id = deliveryIds[0] ?? "";
    await deliverWebhook({ db: db(), runtime: strict, jobs: q, log: silent, resolve }, id);
    const lastError = (await delivery(id))?.lastError;
    expect(lastError).toBe("target refused: host rebind.example does not resolve to a public address");
    expect(lastError).not.toMatch(/127\.0\.0\.1|loopback/);
    expect(rx.received).toHaveLength(0);
  });

  it("connects to the vetted address, never resolving the name a second time", async () => {
    const orgId = await org();
    const rx = await receiver();
    // .test never resolves in real DNS: the request can only arrive through the pinned address.
    const resolve: TResolver = async (host) =>
      host === "pinned.test" ? [{ address: "127.0.0.1", family: 4 }] : [];
    await subscribe(orgId, `http://pinned.test:${rx.port}/hook`, ["policy.violation"], { resolve });
    const { q } = recordingQueue();
    const { deliveryIds } = await emitEvent(db(), q, { orgId, type: "policy.violation", data: violation });
    const id = deliveryIds[0] ?? "";
    expect(await deliverWebhook({ db: db(), runtime, jobs: q, log: silent, resolve }, id)).toBe("delivered");
    expect(rx.received[0]?.headers.host).toBe(`pinned.test:${rx.port}`);
  });

  it("pins https targets too: TLS is attempted against the vetted address", async () => {
    const orgId = await org();
    // A plain-HTTP listener: the TLS handshake fails, but only after connecting to 127.0.0.1.
    const rx = await receiver();
    const resolve: TResolver = async (host) =>
      host === "tls.test" ? [{ address: "127.0.0.1", family: 4 }] : [];
    await subscribe(orgId, `https://tls.test:${rx.port}/hook`, ["policy.violation"], { resolve });
    const { q } = recordingQueue();
    const { deliveryIds } = await emitEvent(db(), q, { orgId, type: "policy.violation", data: violation });
    const id = deliveryIds[0] ?? "";
    await deliverWebhook({ db: db(), runtime, jobs: q, log: silent, resolve, timeoutMs: 2_000 }, id);
    const row = await delivery(id);
    expect(row).toMatchObject({ status: "failed", lastStatusCode: null });
    expect(row?.lastError).toMatch(/EPROTO|SSL|ECONNRESET/);
    expect(row?.lastError).not.toMatch(/ENOTFOUND|EAI_AGAIN/);
  });
});
