import { procedure, scopeOf, SESSION_COOKIE } from "@posture/platform";
import { signOut as signOutService } from "../services/auth";
import { signOutMeta, ZSignOutInput, ZSignOutOutput } from "./sign-out.types";

export const signOut = procedure({ auth: "session" })
  .meta(signOutMeta)
  .input(ZSignOutInput)
  .output(ZSignOutOutput)
  .mutation(async ({ ctx }) => {
    const result = await signOutService(ctx.db, {
      ...scopeOf(ctx.principal),
      sessionId: ctx.principal.credentialId,
    });
    ctx.response.clearCookie(SESSION_COOKIE);
    return result;
  });
