import { procedure } from "@posture/platform";
import { z } from "zod";
import { getAgentInventory as get } from "../services/agents";
import { getAgentInventoryMeta, ZGetAgentInventoryOutput } from "./agent-guard.types";

export const getAgentInventory = procedure({ auth: "session", feature: "agentGuard", role: "ADMIN" })
  .meta(getAgentInventoryMeta)
  .input(z.void())
  .output(ZGetAgentInventoryOutput)
  .query(({ ctx }) => get(ctx.db, { orgId: ctx.principal.org.id }));
