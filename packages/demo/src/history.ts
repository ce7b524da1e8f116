import { eq, sql } from "drizzle-orm";
import { connectors, demoOverlayStore, organizations, workspaceUsers, type Db } from "@posture/db";
import { buildScheduledReport, runRadar, sweepClientHealth } from "@posture/partner";
import type { TLogger, TRuntime } from "@posture/platform";
import { backdate } from "./backdate";
import { callerFor, type TCaller } from "./caller";
import { createSeedQueue, type TSeedQueue } from "./queue";

/** The AI agent granted in two of Northwind's clients in the last week (a Google OAuth client id). */
const QUICKSYNC_CLIENT_ID = "918273645501-quicksyncai.apps.googleusercontent.com";
const DAY_MS = 86_400_000;
/**
 * Weeks are seven days and ten minutes apart. A week's work is dated at its offset within the
 * seconds it really took, so a finding found by one weekly scan and gone at the next was open
 * seven days give or take those seconds: on either side of awareness's "quick fix" bar (seven
 * days) by chance. Ten minutes more than any week's jitter puts it past the bar on every start.
 */
const WEEK_MS = 7 * DAY_MS + 10 * 60_000;
/** Eight weeks of history: nine weekly scans per source, the last an hour ago. */
export const DEMO_WEEKS = 8;
/** Small demo tenants: enough for every view to look real, small enough for a first start. */
export const DEMO_FILES = 2000;
/**
 * The week Acme connects its Microsoft 365 (a small one): behaviour analytics flags what happened
 * in a tenant's last weeks before it was connected (the demo's stories), and anomalies are only
 * detected in the last two weeks, so it joins a week before the end.
 */
const SECOND_SOURCE_WEEK = DEMO_WEEKS - 1;
const SECOND_SOURCE_FILES = 500;
/**
 * Northwind's own small Google Workspace (a partner is a company too: its owner is a person of
 * it, issue 33), connected and scanned in the last week only: the partner's story is its clients'.
 */
const NORTHWIND_SOURCE = "Northwind Google Workspace (demo)";
/** Northwind's weekly portfolio reports are built for the last weeks only (a PDF each). */
const REPORT_WEEKS = 4;
/** The week Globex connects a second source, and what it brings to light drags its score down. */
const GLOBEX_SECOND_SOURCE_WEEK = 5;
/**
 * Globex's GitHub organization (issue 31), connected with its Microsoft 365 and scanned every week
 * as its revisions drift (a repository made public, an outside collaborator given write, each for a
 * few weeks): a small one, so its nine scans add seconds, not minutes, to the seed.
 */
const GLOBEX_GITHUB = "Globex GitHub (demo)";
const DEMO_REPOSITORIES = 120;

export type TDemoHistoryDeps = { db: Db; runtime: TRuntime; log: TLogger };

export type TDemoHistory = {
  weeks: number;
  scans: number;
  incidents: number;
  remediations: number;
  partnerReports: number;
  ms: number;
};

type TConnectorView = { id: string };
type TFinding = {
  id: string;
  severity: string;
  category: string;
  ruleId: string;
  title: string;
  resourceName: string;
};
type TSharingItem = {
  id: string;
  target: string;
  riskRank: number;
  resourceName: string;
  ownerEmail: string;
};

/** The story's cast, found by the demo's e-mail addresses (account's seedDemoIfEmpty made them). */
const CAST = {
  acmeOwner: "owner@acme.example",
  acmeAdmin: "admin@acme.example",
  acmeMember: "member@acme.example",
  globexOwner: "owner@globex.example",
  northwindOwner: "owner@northwind.example",
} as const;

/**
 * The sign-in users as people of their organization's demo tenants (by user index: the tenant's
 * first administrator, an administrator without MFA, a person the behaviour engine flags for bulk
 * access), so that their own awareness score is a person's (issue 33). Which people they are, not
 * what the tenants hold: every number of the story stays (their addresses sort after the first
 * user the partner week picks, and their domain is added to the tenant's own).
 */
const PEOPLE: Record<string, Array<{ index: number; email: string }>> = {
  "Acme Google Workspace (demo)": [{ index: 0, email: CAST.acmeOwner }],
  "Acme Microsoft 365 (demo)": [
    { index: 1, email: CAST.acmeAdmin },
    { index: 8, email: CAST.acmeMember },
  ],
  "Globex Microsoft 365 (demo)": [{ index: 0, email: CAST.globexOwner }],
  [NORTHWIND_SOURCE]: [{ index: 0, email: CAST.northwindOwner }],
};

/**
 * Eight weeks in the life of the demo organizations, told through the service's own procedures
 * and jobs, one week at a time, each week then dated where it belongs (backdate.ts):
 * Acme (business, Google Workspace demo) connects, trusts a partner's domain, opens incidents and
 * works them, removes its public links with a remediation, runs compliance reports and, late,
 * connects its Microsoft 365: its score rises. Globex (team, Microsoft 365 and GitHub demos) only
 * scans while its tenant and its GitHub organization drift, and stays behind.
 * Northwind (their partner) gets weekly portfolio reports and client-health checks.
 */
export async function seedDemoHistory(deps: TDemoHistoryDeps, o: { now?: Date } = {}): Promise<TDemoHistory> {
  const begun = performance.now();
  const jobs = createSeedQueue(deps);
  try {
    return await tell({ ...deps, jobs }, o.now ?? new Date(), begun);
  } finally {
    await jobs.close();
  }
}

type TStoryDeps = TDemoHistoryDeps & { jobs: TSeedQueue };

async function tell(deps: TStoryDeps, now: Date, begun: number): Promise<TDemoHistory> {
  const { db, jobs } = deps;
  // Week w stands at weekStart(w) + 1 h; the last week's scans ran an hour before the seed.
  const end = now.getTime() - 2 * 60 * 60_000;
  const weekStart = (w: number) => new Date(end - (DEMO_WEEKS - w) * WEEK_MS);
  const at = (w: number, hours: number) => new Date(weekStart(w).getTime() + hours * 3_600_000);

  /**
   * One step of the story: run now, wait for its background work, then date it at `when`. A week
   * is one step (its scans, what happened after them, the partner's weekly work): each dating
   * pass touches every dated table, so fewer, longer steps are what keeps the seed fast; a step
   * inside a step is part of it.
   */
  let inStep = false;
  const step = async <T>(when: Date, fn: () => Promise<T>): Promise<T> => {
    if (inStep) return fn();
    inStep = true;
    const from = new Date();
    try {
      const result = await fn();
      await jobs.drain();
      const ran = Date.now() - from.getTime();
      await backdate(db, { from, to: new Date(), at: when });
      deps.log.debug(
        { at: when.toISOString(), ms: ran, backdateMs: Date.now() - from.getTime() - ran },
        "demo seed: step",
      );
      return result;
    } finally {
      inStep = false;
    }
  };

  const acme = await callerFor(deps, CAST.acmeOwner);
  const acmeAdmin = await callerFor(deps, CAST.acmeAdmin);
  const globex = await callerFor(deps, CAST.globexOwner);
  const northwind = await callerFor(deps, CAST.northwindOwner);
  const partnerOrgId = await orgIdOf(db, "Northwind MSP");

  // The organizations joined a day before their first scan.
  await db.update(organizations).set({ createdAt: new Date(weekStart(0).getTime() - DAY_MS) });

  const count = { scans: 0, incidents: 0, remediations: 0, partnerReports: 0 };
  const { acmeSource, globexSource, globexGithub } = await step(at(0, -1), async () => {
    const acmeSource = await connect(db, acme, "google_workspace", "Acme Google Workspace (demo)");
    const globexSource = await connect(db, globex, "microsoft_365", "Globex Microsoft 365 (demo)");
    const globexGithub = await connect(db, globex, "github", GLOBEX_GITHUB, DEMO_REPOSITORIES);
    await northwind("PATCH", "/partner/settings", { reportSchedule: "WEEKLY", notifyUnhealthy: true });
    return { acmeSource, globexSource, globexGithub };
  });
  await startTenantClock(db, [acmeSource, globexSource, globexGithub], at(0, -1));
  let acmeSecond: string | undefined;
  let globexSecond: string | undefined;
  let northwindSource: string | undefined;

  const scanWeek = async (w: number) =>
    step(at(w, 2), async () => {
      const advance = { demo: { advance: 7 } };
      await acme("POST", "/connectors/{id}/sync", { id: acmeSource, ...(w > 0 ? advance : {}) });
      await globex("POST", "/connectors/{id}/sync", { id: globexSource, ...(w > 0 ? advance : {}) });
      await globex("POST", "/connectors/{id}/sync", { id: globexGithub, ...(w > 0 ? advance : {}) });
      count.scans += 3;
      if (globexSecond) {
        const first = w === GLOBEX_SECOND_SOURCE_WEEK;
        await globex("POST", "/connectors/{id}/sync", { id: globexSecond, ...(first ? {} : advance) });
        count.scans++;
      }
      if (acmeSecond) {
        const first = w === SECOND_SOURCE_WEEK;
        await acme("POST", "/connectors/{id}/sync", { id: acmeSecond, ...(first ? {} : advance) });
        count.scans++;
      }
      if (northwindSource) {
        await northwind("POST", "/connectors/{id}/sync", { id: northwindSource });
        count.scans++;
      }
      // The scans run on the seed's queue as they are queued: what the week does next (trusting a
      // domain, opening incidents, a remediation, an approval) reads what they found, not a race
      // with them (one read the week before's shares or the new ones, by timing).
      await jobs.drain();
    });
  const weekly = async (w: number) =>
    step(at(w, 6), async () => {
      await sweepClientHealth({ ...deps, jobs });
      if (
        w > DEMO_WEEKS - REPORT_WEEKS &&
        (await buildScheduledReport(
          { ...deps, jobs },
          // Built after the week's scans, and never later than the seed's now (the last week's is now).
          { partnerOrgId, schedule: "WEEKLY", now: new Date(Math.min(at(w, 5).getTime(), now.getTime())) },
        ))
      )
        count.partnerReports++;
    });

  /**
   * Acme's open findings of a kind for an incident: those on files named as the incident says
   * first, then by file name (the list breaks ties by random ids: the same files every start).
   */
  const openFindings = async (q: { severity: string; category: string }, named: RegExp) => {
    const { findings } = await acme<{ findings: TFinding[] }>("GET", "/findings", {
      status: "OPEN",
      limit: 500,
      ...q,
    });
    const key = (f: TFinding) =>
      `${named.test(f.resourceName) ? 0 : 1}\u0000${f.resourceName}\u0000${f.title}`;
    return findings.sort((a, b) => (key(a) < key(b) ? -1 : 1));
  };

  // Week 0: the first scans; a prevention rule watched in dry run.
  await step(at(0, 1), async () => {
    await scanWeek(0);
    await acme("POST", "/prevention-rules", {
      name: "Public links on sensitive files",
      match: { categories: ["public_exposure"], minSeverity: "HIGH" },
      action: "REVOKE_PUBLIC_LINK",
      dryRun: true,
    });
    await weekly(0);
  });

  /**
   * A quick win carried out whole: planned by the owner over every open finding of its group,
   * approved by an admin, applied to the (demo) sources by the remediation job. Acme removes its
   * public links in week 3 and the new ones every week after, and revokes its unverified broad
   * apps in week 5: that, against a tenant that drifts a little each week, is its rising score.
   */
  const remediateQuickWin = async (
    quickWin: "public_links" | "unverified_broad_apps" | "untrusted_shares",
  ) => {
    const { quickWins } = await acme<{ quickWins: Array<{ action: string; title: string }> }>(
      "GET",
      "/posture/breakdown",
    );
    // Only a group the breakdown offers (one with open findings worth points) is planned.
    const offered = {
      public_links: (q: { action: string }) => q.action === "remove_public_link",
      unverified_broad_apps: (q: { title: string }) => q.title.includes("with broad access"),
      untrusted_shares: (q: { title: string }) => q.title.includes("untrusted domains"),
    }[quickWin];
    if (!quickWins.some(offered)) return;
    const plan = await acme<{ id: string }>("POST", "/remediations", { quickWin });
    await acmeAdmin("POST", "/remediations/{id}/approve", { id: plan.id });
    await acmeAdmin("POST", "/remediations/{id}/apply", { id: plan.id });
    count.remediations++;
  };

  /**
   * The partner at work across its clients (issue 17): a group and a baseline held in it (drift
   * follows), and the same unvetted app granted at the source in Acme's and Globex's Google
   * Workspace, which their scans find and the cross-client radar correlates into one campaign;
   * Northwind plans its revocation in both at once, and Acme's admin approves Acme's part.
   */
  const partnerWeek = async (w: number, sources: { acme: string; globex: string }) => {
    // The week's remediation has been applied before the partner looks (same numbers every start).
    await jobs.drain();
    const clients = [await orgIdOf(db, "Acme Corp"), await orgIdOf(db, "Globex")];
    const group = await northwind<{ id: string }>("POST", "/partner/groups", {
      name: "Priority clients",
      description: "Clients on the monthly review",
    });
    await northwind("PUT", "/partner/groups/{id}/clients", { id: group.id, clientOrgIds: clients });
    const standard = await northwind<{ id: string }>("POST", "/partner/standards", {
      name: "Northwind baseline",
      description: "What every Northwind client holds",
      policies: [
        {
          name: "Public links on sensitive files",
          match: { categories: ["public_exposure"], minSeverity: "HIGH" },
        },
      ],
      preventionRules: [
        {
          name: "Revoke public links",
          match: { categories: ["public_exposure"] },
          action: "REVOKE_PUBLIC_LINK",
        },
      ],
      trustedDomains: [],
      minScore: 80,
    });
    await northwind("PUT", "/partner/standards/{id}/assignments", {
      id: standard.id,
      clientOrgIds: [],
      groupIds: [group.id],
    });

    for (const [i, connectorId] of [sources.acme, sources.globex].entries()) {
      const [user] = await db
        .select({ email: workspaceUsers.email })
        .from(workspaceUsers)
        .where(eq(workspaceUsers.connectorId, connectorId))
        .orderBy(workspaceUsers.email)
        .limit(1);
      if (!user) throw new Error("demo seed: a source without users");
      const id = `demo-quicksync-${i}`;
      await demoOverlayStore(db, connectorId).put(`grant:${id}`, {
        op: "added",
        v: Date.now(),
        grant: {
          id,
          clientId: QUICKSYNC_CLIENT_ID,
          label: "QuickSync AI",
          kind: "ai_agent",
          publisher: "quicksync-ai.example",
          isKnownPublisher: false,
          scopes: ["https://www.googleapis.com/auth/drive", "https://mail.google.com/"],
          userEmail: user.email,
          // Granted two and three days before the week's scans find it: never after the seed's now.
          grantedAt: at(w, -24 * (2 + i)).toISOString(),
        },
      });
    }
    await acme("POST", "/connectors/{id}/sync", { id: sources.acme });
    await globex("POST", "/connectors/{id}/sync", { id: sources.globex });
    count.scans += 2;
    await runRadar({ ...deps, jobs }, partnerOrgId);
    const campaigns = await northwind<{ rows: Array<{ id: string; subject: string }> }>(
      "GET",
      "/partner/campaigns",
      { status: "ACTIVE", kind: "ai_agent" },
    );
    const campaign = campaigns.rows.find((c) => c.subject === QUICKSYNC_CLIENT_ID);
    if (!campaign) throw new Error("demo seed: the radar found no QuickSync campaign");
    const action = await northwind<{ clients: Array<{ orgId: string; remediationId: string | null }> }>(
      "POST",
      "/partner/actions",
      { campaignId: campaign.id },
    );
    const acmePart = action.clients.find((c) => c.orgId === clients[0])?.remediationId;
    if (acmePart) await acmeAdmin("POST", "/remediations/{id}/approve", { id: acmePart });
    count.remediations += action.clients.filter((c) => c.remediationId).length;
  };

  let incidents: { leak: string; behaviour: string } | undefined;
  for (let w = 1; w <= DEMO_WEEKS; w++) await step(at(w, 1), () => week(w));
  return { weeks: DEMO_WEEKS, ...count, ms: Math.round(performance.now() - begun) };

  async function week(w: number): Promise<void> {
    if (w === GLOBEX_SECOND_SOURCE_WEEK) {
      globexSecond = await step(at(w, 1), () =>
        connect(db, globex, "google_workspace", "Globex Google Workspace (demo)", DEMO_FILES / 2),
      );
      await startTenantClock(db, [globexSecond], at(w, 1));
    }
    if (w === SECOND_SOURCE_WEEK) {
      acmeSecond = await step(at(w, 1), () =>
        connect(db, acme, "microsoft_365", "Acme Microsoft 365 (demo)", SECOND_SOURCE_FILES),
      );
      await startTenantClock(db, [acmeSecond], at(w, 1));
    }
    if (w === DEMO_WEEKS) {
      northwindSource = await step(at(w, 1), () =>
        connect(db, northwind, "google_workspace", NORTHWIND_SOURCE, SECOND_SOURCE_FILES),
      );
      await startTenantClock(db, [northwindSource], at(w, 1));
    }
    await scanWeek(w);
    if (w === 1)
      await step(at(1, 4), async () => {
        // A domain Acme shares files with: its payroll provider, trusted from now on (its shares
        // and findings are re-rated at once).
        const domain = (await topShare(acme, "external_domain"))?.target;
        if (domain)
          await acme("POST", "/sharing/trusted-domains", { domain, note: "Outsourced payroll provider" });
        const globexDomain = (await topShare(globex, "external_domain"))?.target;
        if (globexDomain)
          await globex("POST", "/sharing/trusted-domains", { domain: globexDomain, note: "Parent company" });
      });
    if (w === 2)
      incidents = await step(at(2, 4), async () => {
        const exposed = await openFindings(
          { severity: "CRITICAL", category: "public_exposure" },
          /budget|finance|forecast|invoice|payroll|revenue|salary|\.xlsx$/i,
        );
        const leak = await acme<{ id: string }>("POST", "/incidents", {
          title: "Public links on finance documents",
          priority: "P2",
          findingIds: exposed.slice(0, 3).map((f) => f.id),
          assignee: CAST.acmeAdmin,
          summary: "The weekly scan found finance spreadsheets shared with anyone holding the link.",
        });
        const high = await openFindings({ severity: "HIGH", category: "third_party_apps" }, /./);
        const behaviour = await acme<{ id: string }>("POST", "/incidents", {
          title: "Broad OAuth grants to an unverified app",
          priority: "P1",
          findingIds: high.slice(0, 2).map((f) => f.id),
          assignee: CAST.acmeOwner,
        });
        count.incidents += 2;
        return { leak: leak.id, behaviour: behaviour.id };
      });
    if (w === 3 && incidents) {
      const { leak, behaviour } = incidents;
      await step(at(3, 4), async () => {
        await acme("PATCH", "/incidents/{id}", {
          id: leak,
          status: "INVESTIGATING",
          note: "Owners contacted",
        });
        await acme("PATCH", "/incidents/{id}", {
          id: behaviour,
          status: "INVESTIGATING",
          note: "App publisher asked for its verification status",
        });
        await remediateQuickWin("public_links");
      });
    }
    if (w === 4 && incidents) {
      const { leak } = incidents;
      await step(at(4, 4), async () => {
        await acme("POST", "/compliance/reports", { framework: "soc2" });
        await acme("PATCH", "/incidents/{id}", {
          id: leak,
          status: "RESOLVED",
          note: "Links removed by remediation; rescan confirms",
          postMortem: {
            summary: "Finance spreadsheets were shared with anyone holding the link for about two weeks.",
            rootCause: "A shared drive's default link sharing was set to public.",
            lessons: "Public links need an owner and an expiry.",
            actionItems: [
              {
                title: "Turn off public default sharing on the finance drive",
                owner: CAST.acmeAdmin,
                done: true,
              },
              { title: "Review public links monthly", owner: CAST.acmeOwner },
            ],
          },
        });
      });
    }
    // From week 4 on, Acme removes the week's new public links after each weekly scan (in week 7,
    // those its new Microsoft 365 source brought too); in week 5 it revokes its unverified apps.
    if (w >= 4) await step(at(w, 5), () => remediateQuickWin("public_links"));
    if (w === SECOND_SOURCE_WEEK && acmeSecond) {
      // The new source's links gone, Acme rescans it the same day to confirm (and to see its score).
      const id = acmeSecond;
      await step(at(w, 6), async () => {
        // Within the week's step: the remediation's job has to have run first.
        await jobs.drain();
        await acme("POST", "/connectors/{id}/sync", { id });
      });
      count.scans++;
    }
    if (w === 5) await step(at(w, 5), () => remediateQuickWin("unverified_broad_apps"));
    if (w === 6)
      await step(at(6, 4), async () => {
        const item = await topShare(acme, "external_user");
        if (item)
          await acme("POST", "/sharing/approvals", {
            itemId: item.id,
            reason: "Shared with the auditors for the annual audit",
            expiresInDays: 60,
          });
        const medium = await openFindings(
          { severity: "MEDIUM", category: "external_sharing" },
          /employee|hiring|hr\b|onboarding|payroll|salary/i,
        );
        await acme("POST", "/incidents", {
          title: "Externally shared HR folder",
          priority: "P3",
          findingIds: medium.slice(0, 2).map((f) => f.id),
        });
        count.incidents++;
      });
    if (w === DEMO_WEEKS && globexSecond) {
      const sources = { acme: acmeSource, globex: globexSecond };
      await step(at(w, 3), () => partnerWeek(w, sources));
    }
    if (w === DEMO_WEEKS)
      await step(at(w, 4), async () => {
        await acme("POST", "/compliance/reports", { framework: "iso27001" });
        await globex("POST", "/compliance/reports", { framework: "soc2" });
        await acme("POST", "/compliance/evidence/generate", { framework: "soc2" });
      });
    await weekly(w);
  }
}

/**
 * The riskiest external share of a type, the same on every fresh start: the list breaks equal
 * ranks by the store's own ids (new on every start), so among the top-ranked the first by target,
 * file and owner is taken (reading the first row made Globex trust a different domain each start).
 */
async function topShare(call: TCaller, type: "external_domain" | "external_user") {
  const { rows } = await call<{ rows: TSharingItem[] }>("GET", "/sharing/items", { type, limit: 500 });
  const top = rows[0]?.riskRank;
  const key = (r: TSharingItem) => [r.target, r.resourceName, r.ownerEmail].join("\u0000");
  return rows.filter((r) => r.riskRank === top).sort((a, b) => (key(a) < key(b) ? -1 : 1))[0];
}

/** A demo source: `size` files, or repositories for a GitHub organization. */
async function connect(
  db: Db,
  call: TCaller,
  type: "google_workspace" | "microsoft_365" | "github",
  displayName: string,
  size = DEMO_FILES,
) {
  const c = await call<TConnectorView>("POST", "/connectors", {
    type,
    displayName,
    mode: "demo",
    demo: type === "github" ? { repositories: size } : { files: size },
  });
  // The tenant is generated from its name rather than the connector's fresh id: every fresh start
  // tells the same story with the same numbers (the demo test asserts them).
  const config = { seed: `demo-history:${displayName}`, people: PEOPLE[displayName] ?? [] };
  await db
    .update(connectors)
    .set({ config: sql`config || ${JSON.stringify(config)}::jsonb` })
    .where(eq(connectors.id, c.id));
  return c.id;
}

/**
 * A demo tenant's clock starts when its connector was made (its revision 0); dated back to the
 * week it joined, each later scan (seven revisions, a tenant day each, further) reads the tenant
 * as it was that week, and its activity is dated in those weeks too.
 */
async function startTenantClock(db: Db, ids: string[], at: Date): Promise<void> {
  for (const id of ids) await db.update(connectors).set({ createdAt: at }).where(eq(connectors.id, id));
}

async function orgIdOf(db: Db, name: string): Promise<string> {
  const [org] = await db
    .select({ id: organizations.id })
    .from(organizations)
    .where(eq(organizations.name, name));
  if (!org) throw new Error(`demo seed: no organization ${name}`);
  return org.id;
}
