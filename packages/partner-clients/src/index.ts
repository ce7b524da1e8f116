// What the partner router needs from the packages it may not import (issue 17): the client's own
// reads and the remediation planner. An orchestrating package, like scans and remediation: it may
// import domain packages; none imports it. The gateway and the demo seed hand `partnerDeps` to
// buildPartnerRouter.
import type { TPartnerDeps } from "@posture/partner";
import { clientReads } from "./client-reads";
import { planRemediation } from "./plan";

export const partnerDeps = { clientReads, planRemediation } satisfies TPartnerDeps<typeof clientReads>;
