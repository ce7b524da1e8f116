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
      "Checks email and password and starts a browser session (HttpOnly cookie). A wrong email and a wrong password get the same 401 `invalid_credentials`. `organizationId` picks which of the user's organizations the session acts in (the body lists them all under `memberships`); sign in again to switch. 10 attempts per minute per IP and per email.",
    protect: false,
  },
  errors: ["invalid_credentials", "forbidden"],
} satisfies TMeta;

// No address format check: every attempt, well-formed or not, is counted and answered alike.
export const ZSignInInput = z.strictObject({
  email: z.string().trim().min(1).max(320),
  password: z.string().min(1).max(1024),
  organizationId: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe(
      "The organization to sign into, one of the user's `memberships` (a sandbox made with POST /api/sandbox, a client). Absent: the oldest membership. 403 `forbidden` when the user is not a member (after the password was checked).",
    ),
});
export type TSignInInput = z.infer<typeof ZSignInInput>;

export const ZSessionBody = z.object({
  user: z.object({ id: z.string(), email: z.string(), role: z.enum(ROLES) }),
  organization: z.object({ id: z.string(), name: z.string(), plan: z.enum(PLAN_IDS) }),
  memberships: z
    .array(
      z.object({
        organizationId: z.string(),
        name: z.string(),
        role: z.enum(ROLES),
        isSandbox: z.boolean(),
      }),
    )
    .describe(
      "Every organization the user belongs to, oldest first; sign in with `organizationId` to switch",
    ),
});
export type TSessionBodyOutput = z.infer<typeof ZSessionBody>;
