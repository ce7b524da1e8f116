import { z } from "zod";
import type { TMeta } from "@posture/platform";
import { QUICK_WIN_GROUPS } from "../engine/rule-ids";

export const createQuickWinTicketMeta = {
  openapi: {
    method: "POST",
    path: "/posture/quick-wins/{group}/ticket",
    tags: ["posture"],
    summary: "Open one ticket for a quick-win group in the configured issue tracker",
    description:
      "`group` is a quick win's group key (GET /posture/breakdown `quickWins[].plan.quickWin`: public_links, untrusted_shares, …). The ticket lists the group's open findings, worst first (the first 50 linked), and the one remediation that fixes them. 400 for an unknown group, 404 when it has no open finding, 400 integration_not_configured without a tracker, 409 ticket_exists (one ticket per group), 502 upstream_unavailable when the tracker fails (nothing is recorded then).",
    successDescription: "Created",
  },
  successStatus: 201,
  errors: ["integration_not_configured", "ticket_exists", "upstream_unavailable"],
} satisfies TMeta;

export const ZCreateQuickWinTicketInput = z.strictObject({
  group: z.enum(QUICK_WIN_GROUPS.map((g) => g.key) as [TGroupKey, ...TGroupKey[]]),
});
type TGroupKey = (typeof QUICK_WIN_GROUPS)[number]["key"];
