import type { TMeta } from "@posture/platform";
import { z } from "zod";

export { ZKeyMetadata as ZCurrentKeyOutput } from "./list-keys.types";

export const getCurrentKeyMeta = {
  openapi: {
    method: "GET",
    path: "/keys/current",
    tags: ["keys"],
    summary: "The API key making this request",
    description:
      "The calling key's metadata, its `scopes` included (null: unscoped, its owner's full role), so a client (the stdio MCP server) can offer only what the key may do. Any role; a `read` key may call it. 404 when the request is signed in with a session rather than a key.",
  },
  errors: ["not_found"],
  // Shows the credential itself, whose use is written in batches off the request path.
  readCache: false,
} satisfies TMeta;

export const ZGetCurrentKeyInput = z.void();
