import type { Db } from "@posture/db";
import { recordEvent, type TEmitInput, type TEventType } from "@posture/webhooks";

// The remediation's events, in the caller's transaction (the outbox commits with the state
// change they describe, or not at all), and the links they carry.

/**
 * Records one event and its pending deliveries (the transactional outbox) through the webhooks
 * registry, which validates the data; returns the delivery ids to dispatch after commit.
 */
export async function recordRemediationEvent<T extends TEventType>(
  tx: Db,
  input: TEmitInput<T>,
): Promise<string[]> {
  return (await recordEvent(tx, input)).deliveryIds;
}

export const findingLink = (publicUrl: string, id: string) =>
  `${publicUrl.replace(/\/$/, "")}/api/findings/${id}`;
