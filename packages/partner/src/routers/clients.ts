import { router } from "@posture/platform";
import type { TClientReads } from "../client-reads";
import type { TPartnerDeps } from "../deps";
import { clientReadProcedure } from "../procedures/client-read";
import { CLIENT_READ_META as META } from "../procedures/client-read.types";

/**
 * GET /partner/clients/{orgId}/… — a managed client's own reads (docs/partner.md). The explicit
 * type arguments keep each read's own schemas in the procedure's types (inferred from `r.findings`,
 * TypeScript would settle for the constraint, and the keys would lose their input and output types).
 */
export const clientsRouter = <R extends TClientReads>({ clientReads: r }: TPartnerDeps<R>) =>
  router({
    findings: router({ list: clientReadProcedure<R["findings"]>("findings", r.findings, META.findings) }),
    agents: router({ list: clientReadProcedure<R["agents"]>("agents", r.agents, META.agents) }),
    sharing: router({
      overview: router({
        get: clientReadProcedure<R["sharingOverview"]>(
          "sharingOverview",
          r.sharingOverview,
          META.sharingOverview,
        ),
      }),
    }),
    compliance: router({
      dashboard: router({
        get: clientReadProcedure<R["complianceDashboard"]>(
          "complianceDashboard",
          r.complianceDashboard,
          META.complianceDashboard,
        ),
      }),
    }),
    timeline: router({ list: clientReadProcedure<R["timeline"]>("timeline", r.timeline, META.timeline) }),
    incidents: router({
      list: clientReadProcedure<R["incidents"]>("incidents", r.incidents, META.incidents),
    }),
    exposure: router({
      ai: router({ get: clientReadProcedure<R["exposureAi"]>("exposureAi", r.exposureAi, META.exposureAi) }),
    }),
  });
