import type { TConnectorType } from "../types";
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
  type: TConnectorType;
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
  nowMs: number;
  /** Scripted users, each carrying one of the demo's activity stories. */
  scripted: {
    enablesMfa: number;
    reactivated: number;
    sharingSpike: number;
    bulkAccess: number;
    oauthBurst: number;
  };
};

export type TShapeInput = {
  seed: string;
  type: TConnectorType;
  fileCount?: number;
  revision?: number;
  now?: Date;
};

export function shapeOf(opts: TShapeInput): TDemoShape {
  const fileCount = Math.max(0, Math.floor(opts.fileCount ?? 2000));
  const revision = Math.max(0, Math.floor(opts.revision ?? 0));
  const words = seedWords(opts.seed);
  const company = pickAt(COMPANIES, words[0] % COMPANIES.length);
  const tag = (words[1] >>> 0).toString(16).padStart(8, "0").slice(0, 6);
  const domain = `${company}-${tag}.example`;
  const internalDomains =
    opts.type === "microsoft_365" ? [domain, `${company.replace(/-/g, "")}${tag}.onmicrosoft.com`] : [domain];

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

  const userCount = Math.max(25, Math.round(fileCount / 40));
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
    // The tenant as of the hour: every timestamp is anchored here, so rescans within the hour read
    // an unchanged workspace (as a real one mostly is), not every file and user shifted by seconds.
    nowMs: Math.floor((opts.now ?? new Date()).getTime() / HOUR_MS) * HOUR_MS,
    scripted: {
      enablesMfa: a,
      reactivated: a + 1,
      sharingSpike: a + 2,
      bulkAccess: a + 3,
      oauthBurst: a + 4,
    },
  };
}

function rotate<T>(items: readonly T[], by: number): T[] {
  return [...items.slice(by), ...items.slice(0, by)];
}

export function isoAt(ms: number): string {
  return new Date(ms).toISOString();
}
