import { z } from "zod";
import { ZTimestamp, type TMeta } from "@posture/platform";
import { SCENARIO_KINDS } from "../services/tenant-changes";

export const createScenarioMeta = {
  openapi: {
    method: "POST",
    path: "/sandbox/scenarios",
    tags: ["sandbox"],
    summary: "Trigger a sandbox scenario",
    description:
      "Changes the sandbox's synthetic tenant as its people would, then runs the scan a real change feed would " +
      "trigger, so exactly the events a real tenant emits leave through the same signed webhooks. Kinds: " +
      "`public_link_created` (a file gets an anyone-with-the-link share: finding.new, and prevention.triggered / " +
      "remediation.planned where a prevention rule acts on public links), `external_share_created` (a file shared " +
      "with an outside writer: finding.new), `agent_granted` (a user grants an unverified AI agent broad scopes: " +
      "finding.new, CRITICAL), `sharing_spike` (one person shares 30 files outside within half an hour: " +
      "finding.new per file, alert.grouped, then anomaly.detected from behaviour analytics), `client_unhealthy` " +
      "(a client's admin withdraws the service's access: its scan fails, the source turns unhealthy and the " +
      "managing partner gets client.unhealthy; in a sandbox partner it acts on its sandbox client, made on first " +
      "use, in a sandbox client on itself), `org_wide_link_created` (a sensitive file is shared with everyone in " +
      "the organization by link: searchable on Google, an organization-scope link on Microsoft; the internal-exposure " +
      "finding org_wide_link, planned away with POST /remediations), `repository_made_public` (GitHub: a private " +
      "repository is made public: finding.new, the public-repository finding rated by its name and content signals), " +
      "`outside_collaborator_added` (GitHub: an outside collaborator gets write on a repository that had none: " +
      "finding.new, removed with POST /remediations and undone by re-inviting). The GitHub kinds change the first " +
      "demo GitHub organization, the others the first demo Google Workspace or Microsoft 365 tenant; either is " +
      "connected on first use (`Sandbox GitHub organization`, `Sandbox tenant`); a source never " +
      "scanned is scanned in full first (those are the events of connecting a tenant). The run is a job: 202 with " +
      "its id, followed with GET /sandbox/scenarios/{id}. One run (scenario or reset) at a time per sandbox: " +
      "while one is under way, 409 `conflict` with its id as `runningId`. 403 `sandbox_required` outside a " +
      "sandbox organization. " +
      "Audited. See docs/sandbox.md.",
    protect: true,
    successDescription: "Accepted: the run is queued",
  },
  successStatus: 202,
  errors: ["sandbox_required", "conflict", "plan_limit_reached"],
} satisfies TMeta;

export const ZScenarioKind = z.enum(SCENARIO_KINDS);

export const ZCreateScenarioInput = z.strictObject({ kind: ZScenarioKind });

export const ZScenarioRun = z.object({
  id: z.string(),
  kind: ZScenarioKind,
  status: z.literal("QUEUED"),
  orgId: z
    .string()
    .describe("the organization whose tenant changes (a partner's sandbox client for client_unhealthy)"),
  connectorId: z.string(),
  createdAt: ZTimestamp,
});
