import { PLAN_IDS, ROLES } from "@posture/db";
import type { TMeta } from "@posture/platform";
import { z } from "zod";

export const signInMeta = {
  openapi: {
    method: "POST",
    path: "/auth/sign-in",
    tags: ["auth"],
    summary: "Sign in",
    description:
      "Checks email and password and starts a browser session (HttpOnly cookie). A wrong email and a wrong password get the same 401 `invalid_credentials`. 10 attempts per minute per IP and per email.",
    protect: false,
  },
  errors: ["invalid_credentials"],
} satisfies TMeta;

// No address format check: every attempt, well-formed or not, is counted and answered alike.
export const ZSignInInput = z.strictObject({
  email: z.string().trim().min(1).max(320),
  password: z.string().min(1).max(1024),
});
export type TSignInInput = z.infer<typeof ZSignInInput>;

export const ZSessionBody = z.object({
  user: z.object({ id: z.string(), email: z.string(), role: z.enum(ROLES) }),
  organization: z.object({ id: z.string(), name: z.string(), plan: z.enum(PLAN_IDS) }),
});
export type TSessionBodyOutput = z.infer<typeof ZSessionBody>;
