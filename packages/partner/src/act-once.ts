import type { Db } from "@posture/db";
import type { TActor, TJobQueue } from "@posture/platform";

// Act once, everywhere (issue 17, item 5): the partner's one action becomes one remediation per
// affected client, planned by the remediation engine in that client (its approval rules apply).
// The partner package may not import the engine; the gateway hands in this planner
// (packages/composition/src/partner/plan.ts).

/** What to change in one client: the remediation engine's own draft inputs. */
export type TActTarget = {
  findingIds?: string[];
  shareIds?: string[];
  /** Apps by connector and OAuth client key (the planner turns them into the client's agent ids). */
  apps?: Array<{ connectorId: string; clientKey: string }>;
};

/** Why a client got no remediation: the planner's error code and message, or the action's own. */
export type TActRefusal = { code: string; message: string };

export type TPlanOutcome =
  | {
      ok: true;
      remediationId: string;
      status: string;
      steps: number;
      predicted: { score: number; grade: string; scoreDelta: number };
    }
  | { ok: false; error: TActRefusal };

export type TPlanRemediationInput = {
  partnerOrgId: string;
  actor: TActor;
  clientOrgId: string;
  partnerActionId: string;
  target: TActTarget;
};

/**
 * Plans one remediation in one managed client for the partner. A refusal (nothing to do, a
 * read-only connector, the client out of reach) is an outcome, not a throw: the action goes on
 * with the other clients. Anything else (the database away) throws.
 */
export type TPlanRemediation = (
  db: Db,
  input: TPlanRemediationInput,
  deps: { jobs: TJobQueue; publicUrl: string },
) => Promise<TPlanOutcome>;
