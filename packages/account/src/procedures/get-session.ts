import { procedure } from "@posture/platform";
import { sessionBody } from "../services/auth";
import { getSessionMeta, ZGetSessionInput, ZSessionBody } from "./get-session.types";

export const getSession = procedure({ auth: "session" })
  .meta(getSessionMeta)
  .input(ZGetSessionInput)
  .output(ZSessionBody)
  .query(({ ctx }) => sessionBody(ctx.db, ctx.principal));
