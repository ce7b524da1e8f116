import { and, eq } from "drizzle-orm";
import { z } from "zod";
import {
  isUniqueViolation,
  subjectTickets,
  ticketingIntegrations,
  type SUBJECT_TICKET_KINDS,
  type Db,
} from "@posture/db";
import {
  AppError,
  audit,
  createGuardedFetch,
  decryptSecret,
  iso,
  type TActor,
  type TRuntime,
} from "@posture/platform";
import { createIssue } from "./create-ticket";
import type { TIssueDraft, TTicket } from "./types";

export type TSubjectKind = (typeof SUBJECT_TICKET_KINDS)[number];

/**
 * What `POST /posture/quick-wins/{group}/ticket` and `POST /incidents/{id}/ticket` answer: a
 * ticket for several findings, the finding ticket's fields, what it is for and the findings it lists.
 */
export const ZSubjectTicketOutput = z.object({
  ticket: z.object({
    provider: z.string(),
    externalId: z.string(),
    url: z.string().url(),
    status: z.string(),
    kind: z.enum(["quick_win", "incident"]),
    subject: z.string(),
    findingIds: z.array(z.string()),
    createdAt: z.string(),
  }),
});

// The claim is the row itself, written before the tracker is called: the unique key (org, kind,
// subject) turns a concurrent second request into 409 instead of a second upstream issue.
const CLAIM_STATUS = "CREATING";
const STALE_CLAIM_MS = 2 * 60_000;

export type TSubjectTicket = TTicket & {
  kind: TSubjectKind;
  subject: string;
  findingIds: string[];
  createdAt: string;
};

async function claim(
  db: Db,
  o: { orgId: string; kind: TSubjectKind; subject: string; findingIds: string[] },
) {
  const key = and(
    eq(subjectTickets.orgId, o.orgId),
    eq(subjectTickets.kind, o.kind),
    eq(subjectTickets.subject, o.subject),
  );
  const [existing] = await db.select().from(subjectTickets).where(key).limit(1);
  if (existing) {
    const stale =
      existing.status === CLAIM_STATUS && Date.now() - existing.createdAt.getTime() > STALE_CLAIM_MS;
    if (!stale) throw new AppError("ticket_exists", `This ${label(o.kind)} already has a ticket`);
    await db
      .delete(subjectTickets)
      .where(and(eq(subjectTickets.id, existing.id), eq(subjectTickets.status, CLAIM_STATUS)));
  }
  try {
    const [row] = await db
      .insert(subjectTickets)
      .values({ ...o, provider: "github", externalId: "", url: "", status: CLAIM_STATUS })
      .returning({ id: subjectTickets.id });
    if (!row) throw new Error("ticket claim returned nothing");
    return row.id;
  } catch (err) {
    if (isUniqueViolation(err))
      throw new AppError("ticket_exists", `This ${label(o.kind)} already has a ticket`);
    throw err;
  }
}

const label = (kind: TSubjectKind) => (kind === "quick_win" ? "quick win" : "incident");

async function release(db: Db, id: string) {
  await db
    .delete(subjectTickets)
    .where(and(eq(subjectTickets.id, id), eq(subjectTickets.status, CLAIM_STATUS)));
}

/**
 * One ticket for a quick-win group or an incident, in the organization's tracker: the same rules
 * as a finding's ticket (POST /findings/{id}/ticket): 400 integration_not_configured, 409
 * ticket_exists, 502 upstream_unavailable with nothing recorded. The caller (the domain that owns
 * the subject) has checked the subject exists and built the issue's text.
 */
export async function fileSubjectTicket(
  db: Db,
  input: {
    orgId: string;
    actor: TActor;
    kind: TSubjectKind;
    subject: string;
    findingIds: string[];
    draft: TIssueDraft;
  },
  deps: { runtime: TRuntime; fetch?: typeof fetch },
): Promise<TSubjectTicket> {
  const { orgId, kind, subject, findingIds } = input;
  const [integration] = await db
    .select()
    .from(ticketingIntegrations)
    .where(eq(ticketingIntegrations.orgId, orgId))
    .limit(1);
  if (!integration) {
    throw new AppError(
      "integration_not_configured",
      "Configure a ticketing integration first (PUT /api/integrations/ticketing)",
    );
  }
  const id = await claim(db, { orgId, kind, subject, findingIds });
  const guardedFetch = createGuardedFetch({
    allowPrivateTargets: deps.runtime.webhookAllowPrivateTargets,
    resolve: deps.runtime.outboundResolver,
  });
  let ticket: TTicket;
  try {
    ticket = await createIssue(
      {
        provider: integration.provider,
        baseUrl: integration.baseUrl,
        project: integration.project,
        token: decryptSecret(deps.runtime.encryptionKey, integration.tokenEnc),
      },
      input.draft,
      { fetch: deps.fetch ?? guardedFetch },
    );
  } catch (err) {
    await release(db, id);
    throw err;
  }
  const row = await db.transaction(async (tx) => {
    const [updated] = await tx
      .update(subjectTickets)
      .set({
        provider: integration.provider,
        externalId: ticket.externalId,
        url: ticket.url,
        status: ticket.status,
      })
      .where(eq(subjectTickets.id, id))
      .returning();
    await audit(tx, input, {
      action: "TICKET_CREATED",
      target: subject,
      metadata: {
        kind,
        provider: ticket.provider,
        externalId: ticket.externalId,
        findingCount: findingIds.length,
      },
    });
    return updated;
  });
  return {
    ...ticket,
    kind,
    subject,
    findingIds,
    createdAt: iso(row?.createdAt ?? new Date()),
  };
}
