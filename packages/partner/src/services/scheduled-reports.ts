import { and, desc, eq, sql } from "drizzle-orm";
import { organizations, partnerReports, partnerSettings, type Db } from "@posture/db";
import {
  AppError,
  download,
  effectivePlan,
  firstOr404,
  iso,
  PLANS,
  type TDownload,
  type TJobQueue,
  type TLogger,
  type TRuntime,
} from "@posture/platform";
import { withEvents } from "@posture/webhooks";
import { portfolioForPeriod, renderPortfolioPdf } from "./portfolio-pdf";
import { requireGroup } from "./groups";
import { partnerTheme } from "./theme";

export type TSchedule = "WEEKLY" | "MONTHLY";
const DAY = 86_400_000;

/** The last complete period before `now` (UTC): the previous Monday-to-Monday week, or the previous calendar month. */
export function lastCompletePeriod(
  schedule: TSchedule,
  now: Date,
): { start: Date; end: Date; label: string } {
  if (schedule === "WEEKLY") {
    const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
    const sinceMonday = (new Date(today).getUTCDay() + 6) % 7;
    const end = new Date(today - sinceMonday * DAY);
    return { start: new Date(end.getTime() - 7 * DAY), end, label: "Weekly" };
  }
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
  return { start, end, label: "Monthly" };
}

export type TReportDeps = { db: Db; jobs: TJobQueue; runtime: TRuntime; log: TLogger };

/** Builds one partner's report for one period unless it exists; announces it when it is new. */
export async function buildScheduledReport(
  deps: TReportDeps,
  o: { partnerOrgId: string; schedule: TSchedule; now: Date },
): Promise<string | null> {
  const { db } = deps;
  const period = lastCompletePeriod(o.schedule, o.now);
  const [existing] = await db
    .select({ id: partnerReports.id })
    .from(partnerReports)
    .where(
      and(
        eq(partnerReports.partnerOrgId, o.partnerOrgId),
        eq(partnerReports.schedule, o.schedule),
        eq(partnerReports.periodStart, period.start),
      ),
    );
  if (existing) return null;
  const [clients, { theme, name }] = await Promise.all([
    portfolioForPeriod(db, { partnerOrgId: o.partnerOrgId, start: period.start, end: period.end }),
    partnerTheme(db, o.partnerOrgId),
  ]);
  const pdf = await renderPortfolioPdf({ partnerName: name, clients, period, theme, now: o.now });
  // partner.report.ready commits with the report (the transactional outbox).
  const row = await withEvents(db, deps.jobs, async (tx, emit) => {
    const [inserted] = await tx
      .insert(partnerReports)
      .values({
        partnerOrgId: o.partnerOrgId,
        schedule: o.schedule,
        periodStart: period.start,
        periodEnd: period.end,
        clientCount: clients.length,
        sizeBytes: pdf.length,
        pdf,
      })
      .onConflictDoNothing()
      .returning({ id: partnerReports.id });
    if (!inserted) return null; // another worker built it first
    await emit({
      orgId: o.partnerOrgId,
      type: "partner.report.ready",
      data: {
        reportId: inserted.id,
        schedule: o.schedule,
        periodStart: period.start.toISOString(),
        periodEnd: period.end.toISOString(),
        clients: clients.length,
        link: `${deps.runtime.publicUrl.replace(/\/$/, "")}/api/partner/reports/${inserted.id}`,
      },
    });
    return inserted;
  });
  if (!row) return null;
  return row.id;
}

/** Periodic: every partner with a schedule gets its report for the last complete period, once. */
export async function sweepScheduledReports(deps: TReportDeps, now = new Date()): Promise<number> {
  const partners = await deps.db
    .select({
      id: organizations.id,
      plan: organizations.plan,
      gracePlan: organizations.gracePlan,
      graceEndsAt: organizations.graceEndsAt,
      schedule: partnerSettings.reportSchedule,
    })
    .from(partnerSettings)
    .innerJoin(organizations, eq(organizations.id, partnerSettings.orgId))
    .where(and(eq(organizations.isPartner, true), sql`${partnerSettings.reportSchedule} <> 'NONE'`));
  let built = 0;
  for (const p of partners) {
    if (p.schedule === "NONE" || !PLANS[effectivePlan(p, now).plan].features.whiteLabel) continue;
    try {
      if (await buildScheduledReport(deps, { partnerOrgId: p.id, schedule: p.schedule, now })) built++;
    } catch (err) {
      // One partner's failure must not hold back the others; the next sweep retries it.
      deps.log.error({ err, partnerOrgId: p.id }, "scheduled partner report failed");
    }
  }
  return built;
}

export type TReportRow = {
  id: string;
  schedule: TSchedule;
  periodStart: string;
  periodEnd: string;
  clientCount: number;
  sizeBytes: number;
  createdAt: string;
};

export async function listPartnerReports(db: Db, o: { partnerOrgId: string; limit: number; offset: number }) {
  const where = eq(partnerReports.partnerOrgId, o.partnerOrgId);
  const [rows, [total]] = await Promise.all([
    db
      .select({
        id: partnerReports.id,
        schedule: partnerReports.schedule,
        periodStart: partnerReports.periodStart,
        periodEnd: partnerReports.periodEnd,
        clientCount: partnerReports.clientCount,
        sizeBytes: partnerReports.sizeBytes,
        createdAt: partnerReports.createdAt,
      })
      .from(partnerReports)
      .where(where)
      .orderBy(desc(partnerReports.createdAt), desc(partnerReports.id))
      .limit(o.limit)
      .offset(o.offset),
    db
      .select({ n: sql<number>`count(*)::int` })
      .from(partnerReports)
      .where(where),
  ]);
  return {
    rows: rows.map((r): TReportRow => ({
      ...r,
      periodStart: iso(r.periodStart),
      periodEnd: iso(r.periodEnd),
      createdAt: iso(r.createdAt),
    })),
    total: Number(total?.n ?? 0),
  };
}

export async function getPartnerReportPdf(
  db: Db,
  o: { partnerOrgId: string; id: string },
): Promise<TDownload> {
  const r = firstOr404(
    await db
      .select({
        pdf: partnerReports.pdf,
        schedule: partnerReports.schedule,
        periodStart: partnerReports.periodStart,
      })
      .from(partnerReports)
      .where(and(eq(partnerReports.id, o.id), eq(partnerReports.partnerOrgId, o.partnerOrgId))),
    "Report",
  );
  if (r.pdf.length === 0) throw new AppError("not_found", "Report not found");
  return download({
    filename: `portfolio-${r.schedule.toLowerCase()}-${iso(r.periodStart).slice(0, 10)}.pdf`,
    contentType: "application/pdf",
    body: r.pdf,
  });
}

/**
 * GET /partner/reports/portfolio/pdf: the portfolio PDF of the last complete week or month, on
 * demand, for every client or for one group's (its name on the cover): the scheduled report's
 * figures and layout, built now and not stored. An unknown or another partner's group is 404.
 */
export async function buildPortfolioPdf(
  db: Db,
  o: { partnerOrgId: string; period: TSchedule; groupId?: string | undefined; now?: Date },
): Promise<TDownload> {
  const group = o.groupId ? await requireGroup(db, o.partnerOrgId, o.groupId) : null;
  const now = o.now ?? new Date();
  const period = lastCompletePeriod(o.period, now);
  const [clients, { theme, name }] = await Promise.all([
    portfolioForPeriod(db, {
      partnerOrgId: o.partnerOrgId,
      start: period.start,
      end: period.end,
      groupId: group?.id,
    }),
    partnerTheme(db, o.partnerOrgId),
  ]);
  const pdf = await renderPortfolioPdf({
    partnerName: group ? `${name}: ${group.name}` : name,
    clients,
    period,
    theme,
    now,
  });
  const slug = group
    ? `-${group.name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "-")
        .replace(/^-|-$/g, "")}`
    : "";
  return download({
    filename: `portfolio-${o.period.toLowerCase()}-${iso(period.start).slice(0, 10)}${slug}.pdf`,
    contentType: "application/pdf",
    body: pdf,
  });
}
