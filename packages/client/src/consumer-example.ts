// What a UI team writes against @posture/client, kept compiling by this package's typecheck: a
// procedure renamed, an input narrowed or an output field changed breaks
// `pnpm --filter @posture/client typecheck` here before it breaks a team's build. The annotations
// are deliberate: they state what a screen relies on, so the compiler compares it with the router.
import type { RouterInputs, RouterOutputs, TPostureClient } from "./index";

type TSeverity = "CRITICAL" | "HIGH" | "MEDIUM" | "LOW";

/** A findings table: one page of open findings of a severity, and where the next page starts. */
export async function findingsPage(
  client: TPostureClient,
  severity: TSeverity,
  offset = 0,
): Promise<{
  rows: Array<{ id: string; title: string; severity: TSeverity; resource: string }>;
  next: number | null;
}> {
  const page = await client.findings.list.query({ status: "OPEN", severity, limit: 50, offset });
  return {
    rows: page.findings.map((f) => ({
      id: f.id,
      title: f.title,
      severity: f.severity,
      resource: f.resourceName,
    })),
    next: page.nextOffset,
  };
}

type TQuickWin = RouterOutputs["posture"]["breakdown"]["get"]["quickWins"][number];

/** The dashboard's header: three reads in one batched request. */
export async function dashboard(client: TPostureClient): Promise<{
  who: string;
  score: number;
  grade: string;
  trend: number[];
  bestQuickWin: TQuickWin | undefined;
}> {
  const [session, breakdown, history] = await Promise.all([
    client.auth.session.get.query(),
    client.posture.breakdown.get.query(),
    client.posture.history.list.query(),
  ]);
  return {
    who: `${session.user.email} (${session.user.role}) at ${session.organization.name}`,
    score: breakdown.score,
    grade: breakdown.grade,
    trend: history.history.map((point) => point.score),
    bestQuickWin: breakdown.quickWins[0],
  };
}

/** The "fix it" button of a quick win: a plan to review, nothing applied yet. */
export async function planQuickWin(
  client: TPostureClient,
  win: TQuickWin,
): Promise<{ id: string; status: "PLANNED" | string; predictedScore: number; steps: number } | null> {
  if (!win.plan) return null;
  const input: RouterInputs["remediations"]["create"] =
    "findingIds" in win.plan ? { findingIds: win.plan.findingIds } : { quickWin: win.plan.quickWin };
  const plan = await client.remediations.create.mutate(input);
  return { id: plan.id, status: plan.status, predictedScore: plan.predicted.score, steps: plan.steps.length };
}

/** A second pair of eyes, then the change, then the way back. */
export async function approveAndApply(client: TPostureClient, id: string): Promise<string> {
  await client.remediations.approve.mutate({ id });
  const applying = await client.remediations.applyPlan.mutate({ id });
  return applying.status;
}

/** Sign-in form of a server-rendered app or a script. */
export async function signIn(
  client: TPostureClient,
  email: string,
  password: string,
): Promise<{ orgId: string; plan: string }> {
  const session = await client.auth.signIn.mutate({ email, password });
  return { orgId: session.organization.id, plan: session.organization.plan };
}
