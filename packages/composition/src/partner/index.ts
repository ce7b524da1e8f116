// What the partner router needs from the packages it may not import (issue 17): the client's own
// reads and the remediation planner, handed to buildPartnerRouter by the composition root
// (../router.ts).
import type { TPartnerDeps } from "@posture/partner";
import { getAiReadiness } from "@posture/exposure";
import { clientReads } from "./client-reads";
import { planRemediation } from "./plan";

export const partnerDeps = {
  clientReads,
  planRemediation,
  aiReadiness: async (db, orgId) => {
    const r = await getAiReadiness(db, { orgId });
    const openFindings = r.findings.CRITICAL + r.findings.HIGH + r.findings.MEDIUM + r.findings.LOW;
    return { score: r.score, grade: r.grade, openFindings };
  },
} satisfies TPartnerDeps<typeof clientReads>;
