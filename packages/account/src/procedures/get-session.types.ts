import type { TMeta } from "@posture/platform";
import { z } from "zod";

export { ZSessionBody } from "./sign-in.types";

export const getSessionMeta = {
  openapi: {
    method: "GET",
    path: "/auth/session",
    tags: ["auth"],
    summary: "Current session",
    description: "The signed-in user and organization, as returned by sign-in; 401 without a live session.",
    protect: true,
  },
  // Shows the credential itself, whose use is written in batches off the request path.
  readCache: false,
} satisfies TMeta;

export const ZGetSessionInput = z.void();
