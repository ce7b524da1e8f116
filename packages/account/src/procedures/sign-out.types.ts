import type { TMeta } from "@posture/platform";
import { z } from "zod";

export const signOutMeta = {
  openapi: {
    method: "POST",
    path: "/auth/sign-out",
    tags: ["auth"],
    summary: "Sign out",
    description: "Ends the session server-side at once and clears the cookie.",
    protect: true,
  },
} satisfies TMeta;

export const ZSignOutInput = z.void();
export const ZSignOutOutput = z.object({ signedOut: z.literal(true) });
