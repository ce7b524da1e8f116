import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { webhookSubscriptions } from "@posture/db";
import { useDeliveryFixtures, violation } from "../jobs/delivery-fixtures";
import { emitEvent } from "../testing";

const { db, receiver, org, recordingQueue, subscribe, delivery } = useDeliveryFixtures();

describe("emitEvent", () => {
  it("fans out only to active subscriptions of the organization that asked for the type", async () => {
    const orgId = await org();
    const otherOrg = await org();
    const rx = await receiver();
    const wanted = await subscribe(orgId, rx.url, ["policy.violation", "finding.new"]);
    await subscribe(orgId, rx.url, ["scan.completed"]);
    await subscribe(otherOrg, rx.url, ["policy.violation"]);
    const disabled = await subscribe(orgId, rx.url, ["policy.violation"]);
    await db()
      .update(webhookSubscriptions)
      .set({ status: "disabled" })
      .where(eq(webhookSubscriptions.id, disabled.id));
    const { q, calls } = recordingQueue();
    const { deliveryIds } = await emitEvent(db(), q, { orgId, type: "policy.violation", data: violation });
    expect(deliveryIds).toHaveLength(1);
    const row = await delivery(deliveryIds[0] ?? "");
    expect(row).toMatchObject({
      subscriptionId: wanted.id,
      status: "pending",
      attempts: 0,
      event: "policy.violation",
    });
    expect(calls).toEqual([
      { name: "webhook.deliver", data: { deliveryId: deliveryIds[0] }, opts: { jobId: deliveryIds[0] } },
    ]);
  });

  it("validates event data against the spec's fields before recording anything", async () => {
    const orgId = await org();
    const { q, calls } = recordingQueue();
    const bad = [
      { ...violation, extra: "leak" },
      { ruleId: "r", count: 1 },
      { ...violation, severity: "SEVERE" },
      { ...violation, count: 1.5 },
    ];
    for (const data of bad) {
      await expect(
        emitEvent(db(), q, { orgId, type: "policy.violation", data: data as typeof violation }),
      ).rejects.toThrow();
    }
    expect(calls).toHaveLength(0);
  });
});
