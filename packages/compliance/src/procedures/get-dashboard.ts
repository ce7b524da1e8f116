import { procedure } from "@posture/platform";
import { getDashboard as dashboardOf } from "../services/reports";
import { getDashboardMeta, ZGetDashboardInput, ZGetDashboardOutput } from "./get-dashboard.types";

export const getDashboard = procedure({ auth: "apiKey", plan: "business" })
  .meta(getDashboardMeta)
  .input(ZGetDashboardInput)
  .output(ZGetDashboardOutput)
  .query(({ ctx }) => dashboardOf(ctx.db, { orgId: ctx.principal.org.id }));
