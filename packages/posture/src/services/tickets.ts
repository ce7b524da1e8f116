import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { newId, isUniqueViolation, ticketingIntegrations, tickets, type Db } from "@posture/db";
import {
  AppError,
  audit,
  createGuardedFetch,
  decryptSecret,
  encryptSecret,
  iso,
  TargetRefusedError,
  vetTarget,
  type TActor,
  type TRuntime,
} from "@posture/platform";
import { createTicket, type TTicket, type TTicketingConfig } from "@posture/ticketing";
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

export type TTicketDeps = { runtime: TRuntime; fetch?: typeof fetch };

export async function createTicketForFinding(
  db: Db,
  input: { orgId: string; actor: TActor; findingId: string },
  deps: TTicketDeps,
): Promise<TTicket> {
  const { orgId } = input;
  const { runtime } = deps;
  const finding = await getFinding(db, { orgId, id: input.findingId });
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
  // Every call resolves the tracker's name, refuses private addresses and connects to the very
  // address it checked: a name that rebinds after it was saved reaches nothing internal.
  const guardedFetch = createGuardedFetch({
    allowPrivateTargets: runtime.webhookAllowPrivateTargets,
    resolve: runtime.outboundResolver,
  });
  let ticket: TTicket;
  try {
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
        detectedAt: iso(finding.detectedAt),
        link: `${runtime.publicUrl.replace(/\/$/, "")}/api/findings/${finding.id}`,
        details: finding.details,
      },
      { fetch: deps.fetch ?? guardedFetch },
    );
  } catch (err) {
    await releaseClaim(db, claim);
    throw err;
  }
  // The claim becomes the ticket, and its audit entry, in one transaction.
  await db.transaction(async (tx) => {
    await tx
      .update(tickets)
      .set({
        provider: integration.provider,
        externalId: ticket.externalId,
        url: ticket.url,
        status: ticket.status,
      })
      .where(eq(tickets.id, claim));
    await audit(tx, input, {
      action: "TICKET_CREATED",
      target: finding.id,
      metadata: { provider: ticket.provider, externalId: ticket.externalId },
    });
  });
  return ticket;
}

/** Tenant-supplied URLs must not reach into our own network (SSRF): vetted when saved, and pinned at each use. */
async function assertReachable(runtime: TRuntime, baseUrl: string): Promise<void> {
  try {
    await vetTarget(baseUrl, {
      allowPrivateTargets: runtime.webhookAllowPrivateTargets,
      resolve: runtime.outboundResolver,
    });
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
  input: { orgId: string; actor: TActor } & TTicketingConfig,
  runtime: TRuntime,
) {
  await assertReachable(runtime, input.baseUrl);
  // The webhook address and secret are made once and kept across reconfigurations, so the
  // tracker's webhook keeps working; the secret is encrypted at rest like the token.
  const [existing] = await db
    .select({ hookId: ticketingIntegrations.hookId, secretEnc: ticketingIntegrations.webhookSecretEnc })
    .from(ticketingIntegrations)
    .where(eq(ticketingIntegrations.orgId, input.orgId))
    .limit(1);
  const hookId = existing?.hookId ?? newId("thk");
  const webhookSecret = existing?.secretEnc
    ? decryptSecret(runtime.encryptionKey, existing.secretEnc)
    : randomBytes(32).toString("hex");
  const values = {
    orgId: input.orgId,
    provider: input.provider,
    baseUrl: input.baseUrl,
    project: input.project,
    tokenEnc: encryptSecret(runtime.encryptionKey, input.token),
    hookId,
    webhookSecretEnc: encryptSecret(runtime.encryptionKey, webhookSecret),
    updatedAt: new Date(),
  };
  await db.transaction(async (tx) => {
    await tx
      .insert(ticketingIntegrations)
      .values(values)
      .onConflictDoUpdate({ target: ticketingIntegrations.orgId, set: values });
    await audit(tx, input, {
      action: "TICKETING_CONFIGURED",
      target: input.provider,
      metadata: { baseUrl: input.baseUrl, project: input.project },
    });
  });
  return {
    provider: input.provider,
    baseUrl: input.baseUrl,
    project: input.project,
    configured: true as const,
    updatedAt: iso(values.updatedAt),
    hookId,
    webhookUrl: `${runtime.publicUrl.replace(/\/$/, "")}/api/integrations/ticketing/events/${hookId}`,
    webhookSecret,
  };
}
