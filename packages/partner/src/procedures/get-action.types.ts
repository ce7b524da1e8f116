import { z } from "zod";
import type { TMeta } from "@posture/platform";
import { ZId } from "./action.types";

export const getActionMeta = {
  openapi: {
    method: "GET",
    path: "/partner/actions/{id}",
    tags: ["partner"],
    summary: "One partner action, per client",
    description:
      "Each client's part of the action with its remediation's status now (APPROVED, APPLIED… as the client moves it) or `SKIPPED` and why. A client that withdrew its consent is left out; another partner's action is 404.",
    protect: true,
  },
} satisfies TMeta;

export const ZGetActionInput = z.strictObject({ id: ZId });
