import { INCIDENT_PRIORITIES, INCIDENT_STATUSES, SEVERITIES } from "@posture/db";
import { z } from "zod";

// Schemas shared by the incident procedures.
export const ZStatus = z.enum(INCIDENT_STATUSES);
export const ZPriority = z.enum(INCIDENT_PRIORITIES);
export const ZIncidentId = z.strictObject({ id: z.string().min(1).max(100) });

export const ZIncidentSummary = z.object({
  id: z.string(),
  title: z.string(),
  status: ZStatus,
  priority: ZPriority,
  assignee: z.string(),
  openedAt: z.string(),
  updatedAt: z.string(),
  linkedFindingCount: z.number().int().nonnegative(),
});

/** A post-mortem as PATCH /api/incidents/{id} takes it: no field beyond these. */
export const ZPostMortemInput = z.strictObject({
  summary: z.string().max(10_000),
  rootCause: z.string().max(10_000),
  lessons: z.string().max(10_000),
  actionItems: z
    .array(
      z.strictObject({
        title: z.string().min(1).max(500),
        owner: z.string().max(200),
        done: z.boolean().optional(),
      }),
    )
    .max(100),
});

/** A post-mortem as responses carry it: open, like every response (a separate schema from the input's). */
export const ZPostMortem = z.object({
  summary: z.string().max(10_000),
  rootCause: z.string().max(10_000),
  lessons: z.string().max(10_000),
  actionItems: z
    .array(
      z.object({
        title: z.string().min(1).max(500),
        owner: z.string().max(200),
        done: z.boolean().optional(),
      }),
    )
    .max(100),
});

export const ZIncidentDetail = z.object({
  id: z.string(),
  title: z.string(),
  summary: z.string(),
  status: ZStatus,
  priority: ZPriority,
  assignee: z.string(),
  openedAt: z.string(),
  updatedAt: z.string(),
  closedAt: z.string().nullable(),
  linkedFindings: z.array(z.string()),
  log: z.array(z.object({ at: z.string(), note: z.string(), actor: z.string() })),
  postMortem: ZPostMortem.nullable(),
});

export const ZSuggestion = z.object({
  theme: z
    .string()
    .describe(
      "kind:key, e.g. person:alice@acme.com, external_domain:gmail.com, agent:<client id>, rule:public_link",
    ),
  kind: z.enum(["person", "external_domain", "agent", "rule"]),
  key: z.string(),
  title: z.string(),
  severity: z.enum(SEVERITIES),
  findingIds: z.array(z.string()),
  anomalyIds: z.array(z.string()),
});

const text = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .refine((s) => !s.includes("\u0000"), "NUL not allowed");
export const ZTitle = text(200).pipe(z.string().min(1));
export const ZAssignee = text(200);
export const ZNote = text(5_000).pipe(z.string().min(1));
export const ZFindingIds = z.array(z.string().min(1).max(100)).max(500);
