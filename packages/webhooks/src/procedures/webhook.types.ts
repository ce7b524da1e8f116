import { ZTimestamp } from "@posture/platform";
import { z } from "zod";

/** A subscription as every endpoint shows it; the secret appears only in the creation response. */
export const ZWebhook = z.object({
  id: z.string(),
  url: z.string(),
  // Stored as text: a type retired later must not make the list fail validation.
  events: z.array(z.string()),
  /** Also the partner's managed clients' events (issue 17); false for every other organization. */
  includeClients: z.boolean(),
  status: z.enum(["active", "disabled"]),
  disabledReason: z.string().nullable(),
  createdAt: ZTimestamp,
});

export const ZWebhookIdInput = z.strictObject({ id: z.string().min(1).max(100) });
