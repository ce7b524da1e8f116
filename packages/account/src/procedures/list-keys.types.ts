import { type TMeta, ZTimestamp } from "@posture/platform";
import { z } from "zod";
import { ZKeyScopes } from "./create-key.types";

export const listKeysMeta = {
  openapi: {
    method: "GET",
    path: "/keys",
    tags: ["keys"],
    summary: "List API keys",
    description:
      "Key metadata, newest first. Only the display prefix is ever shown, never the key or its hash.",
    protect: true,
  },
  // Shows the credential itself, whose use is written in batches off the request path.
  readCache: false,
} satisfies TMeta;

export const ZListKeysInput = z.void();

export const ZKeyMetadata = z.object({
  id: z.string(),
  name: z.string(),
  keyPrefix: z.string(),
  createdAt: ZTimestamp,
  lastUsedAt: ZTimestamp.nullable(),
  expiresAt: ZTimestamp.nullable(),
  revokedAt: ZTimestamp.nullable(),
  status: z.enum(["active", "revoked", "expired"]),
  scopes: ZKeyScopes,
});

export const ZListKeysOutput = z.object({ keys: z.array(ZKeyMetadata) });
