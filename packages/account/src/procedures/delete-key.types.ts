import type { TMeta } from "@posture/platform";
import { z } from "zod";

export const revokeKeyMeta = {
  openapi: {
    method: "DELETE",
    path: "/keys/{id}",
    tags: ["keys"],
    summary: "Revoke an API key",
    description:
      "Permanent and immediate: the key gets 401 from the next request on. `id` is the key's id, not the key.",
    protect: true,
  },
} satisfies TMeta;

export const ZRevokeKeyInput = z.strictObject({ id: z.string().min(1).max(100) });
export const ZRevokeKeyOutput = z.object({ revoked: z.literal(true) });
