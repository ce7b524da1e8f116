import type { TSuiteType } from "../types";
import { flavourOf, type TCatalogApp, type TFlavour } from "./flavour";
import { mix32, pickAt, seedWords, type TSeedWords } from "./prng";
import {
  COMPANIES,
  PARTNER_DOMAINS,
  PERSONAL_MAIL_DOMAINS,
  STARTUP_PREFIXES,
  STARTUP_SUFFIXES,
  STARTUP_TLDS,
} from "./vocabulary";

// The few numbers and names a whole demo workspace is derived from. Small and computed once;
// the items themselves are generated on demand from (seed, index).

export const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

export type TDemoShape = {
  words: TSeedWords;
  type: TSuiteType;
  flavour: TFlavour;
  company: string;
  domain: string;
  internalDomains: string[];
  /** Partners an administrator would plausibly mark trusted. */
  trustedPartnerDomains: string[];
  /** Other partners, personal mail providers and unknown startups. */
  untrustedDomains: string[];
  personalDomains: string[];
  startupDomains: string[];
  fileCount: number;
  userCount: number;
  adminCount: number;
  driveCount: number;
  catalog: TCatalogApp[];
  longTailAppCount: number;
  grantCount: number;
  revision: number;
  /**
   * The tenant's clock at revision 0 (the hour the connector was made): everything that does not
   * change over revisions is dated from here, so the tenant reads the same at any wall-clock time.
   */
  epochMs: number;
  /** The tenant's clock at this revision: a revision is a day of its life (epoch + revision days). */
  nowMs: number;
  /**
   * People of the tenant who carry a given address and name instead of generated ones (the demo
   * organizations' sign-in users), by user index: everything of theirs (files, shares, activity,
   * grants) follows, since every reference to a user goes through userEmailAt.
   */
  named: ReadonlyMap<number, TNamedPerson>;
  /** Scripted users, each carrying one of the demo's activity stories. */
  scripted: {
    enablesMfa: number;
    reactivated: number;
    sharingSpike: number;
    bulkAccess: number;
    oauthBurst: number;
    massDeletion: number;
  };
};

/** A tenant person with a chosen address and name (see TDemoShape.named). */
export type TNamedPerson = { index: number; email: string; name?: string };

export type TShapeInput = {
  seed: string;
  type: TSuiteType;
  fileCount?: number;
  /** Default: one per forty files, at least 25 (the admins and the behaviour stories need them). */
  userCount?: number;
  revision?: number;
  /** The tenant's clock at revision 0, floored to the hour (default: the current hour). */
  epoch?: Date;
  /** People who carry these addresses and names; their domains are the tenant's too. */
  people?: readonly TNamedPerson[];
};

/** A demo tenant never has fewer users: admins (up to 6) and the scripted stories come first. */
export const MIN_USERS = 25;

export function shapeOf(opts: TShapeInput): TDemoShape {
  const fileCount = Math.max(0, Math.floor(opts.fileCount ?? 2000));
  const revision = Math.max(0, Math.floor(opts.revision ?? 0));
  const epochMs = Math.floor((opts.epoch ?? new Date()).getTime() / HOUR_MS) * HOUR_MS;
  const words = seedWords(opts.seed);
  const company = pickAt(COMPANIES, words[0] % COMPANIES.length);
  const tag = (words[1] >>> 0).toString(16).padStart(8, "0").slice(0, 6);
  const domain = `${company}-${tag}.example`;
  const named = new Map((opts.people ?? []).map((p) => [p.index, { ...p, email: p.email.toLowerCase() }]));
  const internalDomains =
    opts.type === "microsoft_365" ? [domain, `${company.replace(/-/g, "")}${tag}.onmicrosoft.com`] : [domain];
  // A named person's domain is one of the tenant's (a second verified domain), so what they share
  // inside stays internal. Appended: the first domain still names the workspace.
  for (const p of named.values()) {
    const at = p.email.slice(p.email.lastIndexOf("@") + 1);
    if (at && !internalDomains.includes(at)) internalDomains.push(at);
  }

  const partners = rotate(PARTNER_DOMAINS, words[2] % PARTNER_DOMAINS.length).slice(0, 5);
  const startupDomains = [0, 1, 2].map((k) => {
    const h = mix32(words[3] + k * 7919);
    return (
      pickAt(STARTUP_PREFIXES, h % STARTUP_PREFIXES.length) +
      pickAt(STARTUP_SUFFIXES, (h >>> 8) % STARTUP_SUFFIXES.length) +
      pickAt(STARTUP_TLDS, (h >>> 16) % STARTUP_TLDS.length)
    );
  });
  const personalDomains = [...PERSONAL_MAIL_DOMAINS];
  const trustedPartnerDomains = partners.slice(0, 2);

  const userCount = Math.max(MIN_USERS, Math.floor(opts.userCount ?? Math.round(fileCount / 40)));
  const adminCount = 4 + ((words[0] >>> 8) % 3);
  const a = adminCount;
  return {
    words,
    type: opts.type,
    flavour: flavourOf(opts.type),
    company,
    domain,
    internalDomains,
    trustedPartnerDomains,
    untrustedDomains: [...partners.slice(2), ...personalDomains, ...startupDomains],
    personalDomains,
    startupDomains,
    fileCount,
    userCount,
    adminCount,
    driveCount: Math.max(6, Math.round(Math.sqrt(fileCount) / 4)),
    catalog: flavourOf(opts.type).catalog(company),
    longTailAppCount: Math.max(6, Math.round(Math.sqrt(userCount))),
    grantCount: Math.max(40, Math.round(userCount * 1.5)),
    revision,
    epochMs,
    nowMs: epochMs + revision * DAY_MS,
    named,
    scripted: {
      enablesMfa: a,
      reactivated: a + 1,
      sharingSpike: a + 2,
      bulkAccess: a + 3,
      oauthBurst: a + 4,
      massDeletion: a + 5,
    },
  };
}

function rotate<T>(items: readonly T[], by: number): T[] {
  return [...items.slice(by), ...items.slice(0, by)];
}

const TWO_DIGITS = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, "0"));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, "0"));
const datePrefixes = new Map<number, string>();

/**
 * `new Date(ms).toISOString()`, five times faster: a demo tenant formats a few times per file and
 * event, all within a few hundred days, so each day's "YYYY-MM-DDT" is formatted once.
 */
export function isoAt(time: number): string {
  const ms = Math.trunc(time);
  const day = Math.floor(ms / DAY_MS);
  let date = datePrefixes.get(day);
  if (date === undefined) {
    if (datePrefixes.size >= 4_096) datePrefixes.clear();
    date = new Date(day * DAY_MS).toISOString().slice(0, 11);
    datePrefixes.set(day, date);
  }
  let t = ms - day * DAY_MS;
  const milli = t % 1000;
  t = (t - milli) / 1000;
  const sec = t % 60;
  t = (t - sec) / 60;
  const min = t % 60;
  const hour = (t - min) / 60;
  return `${date}${TWO_DIGITS[hour]}:${TWO_DIGITS[min]}:${TWO_DIGITS[sec]}.${THREE_DIGITS[milli]}Z`;
}
