import { AppError, clientBucket, publicProcedure, SESSION_COOKIE } from "@posture/platform";
import { signIn as signInService } from "../services/auth";
import { drainSoon } from "../services/sign-in-failures";
import { normalizeEmail } from "../services/users";
import { signInMeta, ZSessionBody, ZSignInInput } from "./sign-in.types";

export const signIn = publicProcedure
  .meta(signInMeta)
  .input(ZSignInInput)
  .output(ZSessionBody)
  .mutation(async ({ ctx, input }) => {
    // Per IPv4 address or IPv6 /64: rotating within a /64 does not reset the budget.
    await ctx.limits.enforce("signIn", `ip:${clientBucket(ctx.ip)}`);
    await ctx.limits.enforce("signIn", `email:${normalizeEmail(input.email)}`);
    const result = await signInService(ctx.db, {
      email: input.email,
      password: input.password,
      organizationId: input.organizationId,
      previousSessionId: ctx.principal?.kind === "session" ? ctx.principal.credentialId : null,
    }).catch((err: unknown) => {
      // The failure is recorded; its audit row is appended once the 401 is on its way.
      if (err instanceof AppError && err.code === "invalid_credentials") {
        ctx.response.afterResponse(() => drainSoon(ctx.db, ctx.log, ctx.dataWrites));
      }
      throw err;
    });
    ctx.response.setCookie(SESSION_COOKIE, result.token, { maxAgeSeconds: result.maxAgeSeconds });
    return result.body;
  });
