import { INCIDENT_PRIORITIES, INCIDENT_STATUSES, SEVERITIES } from "@posture/db";
import { z } from "zod";
import { DEADLINE_STATUSES, REGULATIONS } from "../services/deadlines";

// Schemas shared by the incident procedures.
export const ZStatus = z.enum(INCIDENT_STATUSES);
export const ZPriority = z.enum(INCIDENT_PRIORITIES);
export const ZIncidentId = z.strictObject({ id: z.string().min(1).max(100) });

export const ZRegulation = z.enum(REGULATIONS);

export const ZDeadline = z.object({
  regulation: ZRegulation.describe("gdpr: GDPR Art. 33, 72 hours; hipaa: HIPAA 45 CFR 164.404(b), 60 days"),
  dueAt: z.string().describe("The opening plus the regulation's window"),
  status: z
    .enum(DEADLINE_STATUSES)
    .describe(
      "running / overdue (not resolved, before / after dueAt); met / missed (resolved by / after dueAt: the clock stopped)",
    ),
  stoppedAt: z
    .string()
    .nullable()
    .describe("When the clock stopped (the incident's resolvedAt); null while it runs"),
});

export const ZDeadlines = z
  .array(ZDeadline)
  .describe("The regulatory clocks, one per regulation the organization has not turned off");

export const ZIncidentSummary = z.object({
  id: z.string(),
  title: z.string(),
  status: ZStatus,
  priority: ZPriority,
  assignee: z.string(),
  openedAt: z.string(),
  updatedAt: z.string(),
  linkedFindingCount: z.number().int().nonnegative(),
  resolvedAt: z.string().nullable(),
  deadlines: ZDeadlines,
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
  resolvedAt: z
    .string()
    .nullable()
    .describe("When it last moved to RESOLVED or CLOSED; null while open (cleared when reopened)"),
  deadlines: ZDeadlines,
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
