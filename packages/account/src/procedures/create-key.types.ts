import { API_KEY_SCOPES, type TMeta, ZTimestamp } from "@posture/platform";
import { z } from "zod";

export const createKeyMeta = {
  openapi: {
    method: "POST",
    path: "/keys",
    tags: ["keys"],
    summary: "Create an API key",
    description:
      "Returns the full key this once (`key`); only its SHA-256 and display prefix are kept. Omit expiresInDays for a key that does not expire. `scopes: [\"read\"]` makes a read-only key: every GET its owner's role allows and nothing else (any other call is 403 `insufficient_scope`, over REST, /trpc and MCP). Omit scopes for a key with its owner's full role.",
    protect: true,
  },
  successStatus: 201,
} satisfies TMeta;

/** A key's scopes as the API shows them: null for an unscoped key (its owner's full role). */
export const ZKeyScopes = z
  .array(z.enum(API_KEY_SCOPES))
  .nullable()
  .describe("The key's scopes; null: unscoped, the owner's full role (every key created without scopes).");

export const ZCreateKeyInput = z.strictObject({
  name: z.string().trim().min(1).max(80),
  expiresInDays: z.number().int().min(1).max(3650).optional(),
  scopes: z
    .array(z.enum(API_KEY_SCOPES))
    .min(1)
    .max(API_KEY_SCOPES.length)
    .optional()
    .describe(
      "What the key may do within its owner's role: `read` (GET operations only) or `write` (everything, reads included). Omitted: no limit, the owner's full role.",
    ),
});
export type TCreateKeyInput = z.infer<typeof ZCreateKeyInput>;

export const ZCreateKeyOutput = z.object({
  key: z.string(),
  id: z.string(),
  name: z.string(),
  keyPrefix: z.string(),
  expiresAt: ZTimestamp.nullable(),
  createdAt: ZTimestamp,
  scopes: ZKeyScopes,
});
