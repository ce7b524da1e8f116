// The awareness score, free of I/O: a person's own signals in, a score whose factors add up to
// it, badges and concrete nudges out. Weights are recorded in docs/decisions.md (Awareness).

export type TSignals = {
  email: string;
  /** null: unknown (no workspace snapshot for this person). */
  mfaEnabled: boolean | null;
  dormant: boolean;
  openPublicLinks: Array<{ name: string; ageDays: number }>;
  openExternalShares: Array<{ name: string; domains: string[]; ageDays: number }>;
  /** Days each exposure this person owned took to fix, over the last 90 days. */
  fixDays: number[];
  anomalies: Array<{ type: string; severity: string; window: string; observed: number }>;
};

export type TFactor = { key: string; delta: number };
export type TAwareness = {
  email: string;
  score: number;
  factors: TFactor[];
  badges: string[];
  nudges: string[];
};

const BASE = 100;
const SLOW_FIX_DAYS = 30;
const QUICK_FIX_DAYS = 7;

function median(v: number[]): number {
  const s = [...v].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0 ? 0 : s.length % 2 ? (s[m] ?? 0) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
}

const ANOMALY_NUDGE: Record<string, (a: TSignals["anomalies"][number]) => string> = {
  sharing_spike: (a) =>
    `Confirm the ${a.observed} external shares you made in ${a.window} were intended, and remove those that were not`,
  bulk_access: (a) => `Confirm why you opened or downloaded ${a.observed} files in ${a.window}`,
  dormant_reactivation: () =>
    "Confirm it was you who signed in to your long-unused account, or report it to security",
  mass_deletion: (a) =>
    `Confirm the ${a.observed} files you deleted in ${a.window} were meant to go, and restore them from the bin if not`,
  oauth_burst: (a) =>
    `Review the ${a.observed} apps you granted access to in ${a.window} and revoke those you do not use`,
};

export function scoreOf(s: TSignals): TAwareness {
  const factors: TFactor[] = [{ key: "base", delta: BASE }];
  const nudges: string[] = [];
  const push = (key: string, delta: number) => {
    if (delta !== 0) factors.push({ key, delta });
  };

  if (s.mfaEnabled === false) {
    push("mfa_disabled", -25);
    nudges.push("Turn on multi-factor authentication for your account");
  }
  push("public_links", -Math.min(30, 10 * s.openPublicLinks.length));
  const links = [...s.openPublicLinks].sort((a, b) => b.ageDays - a.ageDays || a.name.localeCompare(b.name));
  for (const l of links.slice(0, 3)) nudges.push(`Remove the public link on '${l.name}'`);
  push("external_shares", -Math.min(20, 4 * s.openExternalShares.length));
  const shares = [...s.openExternalShares].sort(
    (a, b) => b.ageDays - a.ageDays || a.name.localeCompare(b.name),
  );
  for (const e of shares.slice(0, 3))
    nudges.push(
      `Review the external share of '${e.name}'${e.domains.length ? ` with ${e.domains.slice(0, 2).join(", ")}` : ""}`,
    );

  const stale = [...s.openPublicLinks, ...s.openExternalShares].filter(
    (x) => x.ageDays > SLOW_FIX_DAYS,
  ).length;
  push("slow_fixes", -Math.min(10, 5 * stale));
  const quick = s.fixDays.filter((d) => d <= QUICK_FIX_DAYS).length;
  push("quick_fixes", Math.min(10, 2 * quick));

  const serious = s.anomalies.filter((a) => a.severity === "CRITICAL" || a.severity === "HIGH").length;
  push("anomalies", -Math.min(30, 15 * serious + 10 * (s.anomalies.length - serious)));
  for (const a of s.anomalies.slice(0, 2))
    nudges.push((ANOMALY_NUDGE[a.type] ?? (() => `Review your activity in ${a.window}`))(a));

  if (s.dormant) {
    push("dormant_access", -10);
    nudges.push("Sign in to your account or ask IT to disable it if you no longer need it");
  }

  // The sum is the score: a floor or a ceiling shows as a factor of its own.
  const raw = factors.reduce((n, f) => n + f.delta, 0);
  if (raw < 0) push("floor", -raw);
  if (raw > BASE) push("ceiling", BASE - raw);
  const score = factors.reduce((n, f) => n + f.delta, 0);

  const badges: string[] = [];
  if (s.mfaEnabled === true) badges.push("mfa_enabled");
  if (s.openPublicLinks.length === 0) badges.push("no_public_links");
  if (s.openPublicLinks.length === 0 && s.openExternalShares.length === 0) badges.push("clean_sharing");
  if (quick >= 3 && median(s.fixDays) <= QUICK_FIX_DAYS) badges.push("quick_fixer");
  if (s.anomalies.length === 0) badges.push("steady_behaviour");
  return { email: s.email, score, factors, badges, nudges };
}

export type TRanked = TAwareness & { rank: number };

/**
 * Leaderboard order: score descending, then e-mail; equal scores share a rank and the next rank
 * skips (1, 2, 2, 4). The top three ranks earn gold, silver and bronze.
 */
export function rank(people: TAwareness[]): TRanked[] {
  const sorted = [...people].sort((a, b) => b.score - a.score || a.email.localeCompare(b.email));
  const out: TRanked[] = [];
  sorted.forEach((p, i) => {
    const prev = out[i - 1];
    const r = prev && prev.score === p.score ? prev.rank : i + 1;
    const medal = r === 1 ? "gold" : r === 2 ? "silver" : r === 3 ? "bronze" : null;
    out.push({ ...p, rank: r, badges: medal ? [...p.badges, medal] : p.badges });
  });
  return out;
}

/** Where a score would stand among others (1 + the number of people strictly above it). */
export function rankAmong(score: number, others: readonly { score: number }[]): number {
  return 1 + others.filter((o) => o.score > score).length;
}
