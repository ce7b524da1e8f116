import type { Db, TPlanId, TRole } from "@posture/db";
import type { TFeature } from "@posture/platform";
import type { z } from "zod";

/** Who reads a client's data for the partner: the partner user's role stands in for a role in the client. */
export type TClientViewer = { role: TRole };

/**
 * One of the client's own reads, handed in by the composition root (@posture/composition)
 * that may import its owner: the client procedure's input and output schemas, the same objects,
 * and the service behind it. The partner procedure takes `{orgId}` plus that input and answers
 * with that output, so a partner sees exactly what the client sees.
 */
export type TClientRead<TIn extends z.ZodObject = z.ZodObject, TOut extends z.ZodType = z.ZodType> = {
  /** The client procedure's input (a procedure without input: `z.strictObject({})`). */
  input: TIn;
  output: TOut;
  /** The client procedure's plan gate, judged on the CLIENT's effective plan. */
  gate?: { plan?: TPlanId; feature?: TFeature };
  /** The client procedure's role, judged on the partner user's own role. */
  role?: Exclude<TRole, "member">;
  /** The client's own service, scoped to the client (method syntax: each read narrows `q`). */
  read(db: Db, q: z.output<TIn> & { orgId: string }, viewer: TClientViewer): Promise<z.input<TOut>>;
};

/** The reads under /partner/clients/{orgId}/… (issue 17, item 1; the AI exposure of issue 30). */
export type TClientReads = {
  /** GET /exposure/ai (issue 30). */
  exposureAi: TClientRead;
  findings: TClientRead;
  agents: TClientRead;
  sharingOverview: TClientRead;
  complianceDashboard: TClientRead;
  timeline: TClientRead;
  /** GET /incidents, with each incident's regulatory clocks (`deadlines`). */
  incidents: TClientRead;
};

export type TClientReadName = keyof TClientReads;

/** Declares one read with its schemas' types kept (an identity: the types are the point). */
export const clientRead = <TIn extends z.ZodObject, TOut extends z.ZodType>(
  read: TClientRead<TIn, TOut>,
): TClientRead<TIn, TOut> => read;
