import { z } from "zod";
import { procedure } from "@posture/platform";
import { getSharingOverview as get } from "../services/sharing-overview";
import { getSharingOverviewMeta, ZGetSharingOverviewOutput } from "./sharing.types";

export const getSharingOverview = procedure({ auth: "session", role: "ADMIN" })
  .meta(getSharingOverviewMeta)
  .input(z.void())
  .output(ZGetSharingOverviewOutput)
  .query(({ ctx }) => get(ctx.db, { orgId: ctx.principal.org.id }));
