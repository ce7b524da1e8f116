import { and, eq } from "drizzle-orm";
import { ticketingIntegrations, tickets, type Db } from "@posture/db";
import {
  AppError,
  decryptSecret,
  encryptSecret,
  recordAudit,
  type TPrincipal,
  type TRuntime,
} from "@posture/platform";
import { createTicket, type TTicket, type TTicketingConfig } from "@posture/ticketing";
import { TargetRefusedError, vetTarget } from "@posture/webhooks";
import { getFinding } from "./findings";

// A claim is the ticket row itself, written before the tracker is called: the unique index on
// finding_id turns a concurrent second request into 409 instead of a second upstream issue.
const CLAIM_STATUS = "CREATING";
const STALE_CLAIM_MS = 2 * 60_000;

async function claimTicket(db: Db, orgId: string, findingId: string): Promise<string> {
  const [existing] = await db.select().from(tickets).where(eq(tickets.findingId, findingId)).limit(1);
  if (existing) {
    const stale =
      existing.status === CLAIM_STATUS && Date.now() - existing.createdAt.getTime() > STALE_CLAIM_MS;
    if (!stale) throw new AppError("ticket_exists", "This finding already has a ticket");
    // A request that died mid-way left its claim behind; it no longer blocks.
    await db.delete(tickets).where(and(eq(tickets.id, existing.id), eq(tickets.status, CLAIM_STATUS)));
  }
  try {
    const [row] = await db
      .insert(tickets)
      .values({ orgId, findingId, provider: "github", externalId: "", url: "", status: CLAIM_STATUS })
      .returning({ id: tickets.id });
    if (!row) throw new Error("ticket claim returned nothing");
    return row.id;
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError("ticket_exists", "This finding already has a ticket");
    throw err;
  }
}

async function releaseClaim(db: Db, id: string): Promise<void> {
  await db.delete(tickets).where(and(eq(tickets.id, id), eq(tickets.status, CLAIM_STATUS)));
}

/** Postgres unique violation: two concurrent requests raced for the same finding's ticket. */
function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } };
  return e.code === "23505" || e.cause?.code === "23505";
}

export async function createTicketForFinding(
  db: Db,
  runtime: TRuntime,
  principal: TPrincipal,
  findingId: string,
  opts: { fetch?: typeof fetch } = {},
): Promise<TTicket> {
  const orgId = principal.org.id;
  const finding = await getFinding(db, orgId, findingId);
  const [integration] = await db
    .select()
    .from(ticketingIntegrations)
    .where(eq(ticketingIntegrations.orgId, orgId))
    .limit(1);
  const claim = await claimTicket(db, orgId, finding.id);
  if (!integration) {
    await releaseClaim(db, claim);
    throw new AppError(
      "integration_not_configured",
      "Configure a ticketing integration first (PUT /api/integrations/ticketing)",
    );
  }
  const config: TTicketingConfig = {
    provider: integration.provider,
    baseUrl: integration.baseUrl,
    project: integration.project,
    token: decryptSecret(runtime.encryptionKey, integration.tokenEnc),
  };
  let ticket: TTicket;
  try {
    await assertReachable(runtime, config.baseUrl);
    // Upstream first: if the tracker fails, the claim is released, nothing is recorded, and the
    // caller may simply retry.
    ticket = await createTicket(
      config,
      {
        id: finding.id,
        title: finding.title,
        severity: finding.severity,
        resourceName: finding.resourceName,
        connectorType: finding.connectorType,
        detectedAt: finding.detectedAt.toISOString(),
        link: `${runtime.publicUrl.replace(/\/$/, "")}/findings/${finding.id}`,
        details: finding.details,
      },
      opts.fetch ? { fetch: opts.fetch } : {},
    );
  } catch (err) {
    await releaseClaim(db, claim);
    throw err;
  }
  await db
    .update(tickets)
    .set({
      provider: integration.provider,
      externalId: ticket.externalId,
      url: ticket.url,
      status: ticket.status,
    })
    .where(eq(tickets.id, claim));
  await recordAudit(db, {
    orgId,
    action: "TICKET_CREATED",
    target: finding.id,
    userId: principal.userId,
    userEmail: principal.userEmail,
    metadata: { provider: ticket.provider, externalId: ticket.externalId },
  });
  return ticket;
}

/** Tenant-supplied URLs must not reach into our own network (SSRF); vetted when saved and before each use. */
async function assertReachable(runtime: TRuntime, baseUrl: string): Promise<void> {
  try {
    await vetTarget(baseUrl, { allowPrivateTargets: runtime.webhookAllowPrivateTargets });
  } catch (err) {
    if (err instanceof TargetRefusedError) {
      throw new AppError("invalid_input", err.message, {
        details: [{ path: "baseUrl", message: err.message }],
      });
    }
    throw err;
  }
}

export async function configureTicketing(
  db: Db,
  runtime: TRuntime,
  principal: TPrincipal,
  input: TTicketingConfig,
) {
  await assertReachable(runtime, input.baseUrl);
  const values = {
    orgId: principal.org.id,
    provider: input.provider,
    baseUrl: input.baseUrl,
    project: input.project,
    tokenEnc: encryptSecret(runtime.encryptionKey, input.token),
    updatedAt: new Date(),
  };
  await db
    .insert(ticketingIntegrations)
    .values(values)
    .onConflictDoUpdate({ target: ticketingIntegrations.orgId, set: values });
  await recordAudit(db, {
    orgId: principal.org.id,
    action: "TICKETING_CONFIGURED",
    target: input.provider,
    userId: principal.userId,
    userEmail: principal.userEmail,
    metadata: { baseUrl: input.baseUrl, project: input.project },
  });
  return {
    provider: input.provider,
    baseUrl: input.baseUrl,
    project: input.project,
    configured: true as const,
    updatedAt: values.updatedAt.toISOString(),
  };
}
