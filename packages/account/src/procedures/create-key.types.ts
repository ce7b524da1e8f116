import { type TMeta, ZTimestamp } from "@posture/platform";
import { z } from "zod";

export const createKeyMeta = {
  openapi: {
    method: "POST",
    path: "/keys",
    tags: ["keys"],
    summary: "Create an API key",
    description:
      "Returns the full key this once (`key`); only its SHA-256 and display prefix are kept. Omit expiresInDays for a key that does not expire.",
    protect: true,
  },
  successStatus: 201,
} satisfies TMeta;

export const ZCreateKeyInput = z.strictObject({
  name: z.string().trim().min(1).max(80),
  expiresInDays: z.number().int().min(1).max(3650).optional(),
});
export type TCreateKeyInput = z.infer<typeof ZCreateKeyInput>;

export const ZCreateKeyOutput = z.object({
  key: z.string(),
  id: z.string(),
  name: z.string(),
  keyPrefix: z.string(),
  expiresAt: ZTimestamp.nullable(),
  createdAt: ZTimestamp,
});
