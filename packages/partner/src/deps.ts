import type { Db } from "@posture/db";
import type { TClientReads } from "./client-reads";
import type { TPlanRemediation } from "./act-once";

/**
 * What the partner router needs from packages it may not import (a domain package never imports
 * another): the gateway, which composes every package, hands these in (apps/gateway/src/router.ts).
 */
export type TPartnerDeps<R extends TClientReads = TClientReads> = {
  /** The client's own reads (findings, agents, sharing overview, compliance dashboard, timeline). */
  clientReads: R;
  /** The remediation engine's planner, acting for the partner in one client. */
  planRemediation: TPlanRemediation;
  /** A client's AI readiness score and grade (@posture/exposure), for the portfolio's "who is not ready". */
  aiReadiness: (db: Db, orgId: string) => Promise<{ score: number; grade: string; openFindings: number }>;
};
