import { procedure } from "@posture/platform";
import { z } from "zod";
import { getRiskMatrix as get } from "../services/agents";
import { getRiskMatrixMeta, ZGetRiskMatrixOutput } from "./agent-guard.types";

export const getRiskMatrix = procedure({ auth: "session", feature: "agentGuard", role: "ADMIN" })
  .meta(getRiskMatrixMeta)
  .input(z.void())
  .output(ZGetRiskMatrixOutput)
  .query(({ ctx }) => get(ctx.db, { orgId: ctx.principal.org.id }));
