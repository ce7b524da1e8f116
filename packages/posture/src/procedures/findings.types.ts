import { z } from "zod";
import { ZFindingCategory, ZSeverity } from "./shared.types";
import { offsetInput, ZOffsetMeta, ZTimestamp, type TMeta } from "@posture/platform";

export const ZFinding = z.object({
  id: z.string(),
  severity: ZSeverity,
  title: z.string(),
  resourceName: z.string(),
  connectorType: z.string(),
  status: z.enum(["OPEN", "RESOLVED", "ACCEPTED"]),
  detectedAt: ZTimestamp,
  category: z.string(),
  ruleId: z.string(),
  connectorId: z.string(),
  resolvedAt: ZTimestamp.nullable(),
  benchmark: z
    .object({
      name: z.string().describe("e.g. `CIS Google Workspace Foundations`, `CIS Microsoft 365 Foundations`"),
      version: z.string().describe("The benchmark version the check follows, e.g. `1.3.0`"),
      id: z.string().describe("The benchmark's own recommendation id, e.g. `3.1.2.1.1`"),
    })
    .optional()
    .describe(
      "Tenant-configuration findings (category `tenant_configuration`) only: the benchmark recommendation the tenant fails. Other findings omit it.",
    ),
  tenantCheck: z
    .object({
      settings: z
        .record(z.string(), z.unknown())
        .describe("The tenant settings the check read, by setting key, as read on the last scan"),
      expected: z.string().describe("The value the benchmark expects, in words"),
      fix: z.string().describe("How to fix it, as the admin console names it"),
    })
    .optional()
    .describe("Tenant-configuration findings only: the setting read, the expected value and the fix."),
});

export const listFindingsMeta = {
  openapi: {
    method: "GET",
    path: "/findings",
    tags: ["findings"],
    summary: "List findings, most severe first, then newest",
    description:
      "Open findings by default (`status=all` or `RESOLVED` to widen); `severity` and `category` narrow (`category` is the link of alert.grouped; `tenant_configuration` lists the failing tenant-setting checks, whose rows carry `benchmark`). Offset-paginated: limit default 50, max 500; `total` counts every match, nextOffset is null on the last page.",
  },
} satisfies TMeta;
/** The list's filters: GET /findings and GET /findings/export take exactly these. */
export const ZFindingFilters = z.strictObject({
  status: z.enum(["OPEN", "RESOLVED", "ACCEPTED", "all"]).default("OPEN"),
  severity: ZSeverity.optional(),
  category: ZFindingCategory.optional(),
});
export const ZListFindingsInput = offsetInput(50, 500).extend(ZFindingFilters.shape);
export const ZListFindingsOutput = ZOffsetMeta.extend({ findings: z.array(ZFinding) });

export const createTicketMeta = {
  openapi: {
    method: "POST",
    path: "/findings/{id}/ticket",
    tags: ["findings"],
    summary: "Open a ticket for a finding in the configured issue tracker",
    description:
      "400 integration_not_configured without a tracker; 409 ticket_exists; 502 upstream_unavailable when the tracker fails (nothing is recorded then).",
    successDescription: "Created",
  },
  successStatus: 201,
  errors: ["integration_not_configured", "ticket_exists", "upstream_unavailable"],
} satisfies TMeta;
export const ZCreateTicketInput = z.strictObject({ id: z.string().min(1).max(100) });
export const ZTicketOutput = z.object({
  ticket: z.object({
    provider: z.string(),
    externalId: z.string(),
    url: z.string().url(),
    status: z.string(),
  }),
});

export const configureTicketingMeta = {
  openapi: {
    method: "PUT",
    path: "/integrations/ticketing",
    tags: ["integrations"],
    summary: "Configure the issue tracker used for tickets (Jira, GitHub Issues or Linear)",
    description:
      "The token is encrypted at rest and never returned. The answer carries the tracker's webhook: `webhookUrl` (POST /api/integrations/ticketing/events/{hookId}) and `webhookSecret`, the secret to give the tracker (Jira admin webhook secret, GitHub webhook secret, Linear signing secret), kept across reconfigurations. A ticket closed or reopened in the tracker then moves its finding (docs/integrators.md).",
  },
} satisfies TMeta;
export const ZTicketingConfigOutput = z.object({
  provider: z.string(),
  baseUrl: z.string(),
  project: z.string(),
  configured: z.literal(true),
  updatedAt: ZTimestamp,
  hookId: z.string().describe("Names this integration's webhook address"),
  webhookUrl: z.string().url().describe("Where the tracker sends its webhooks"),
  webhookSecret: z.string().describe("The shared secret the tracker signs its webhooks with (HMAC-SHA256)"),
});
