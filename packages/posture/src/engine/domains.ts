import { domainIn } from "@posture/platform";

export { emailDomain } from "@posture/platform";

export type TDomainSet = { has: (domain: string) => boolean };

/** The organization's domains, normalised, matched exactly or as a parent (see domainIn). */
export function domainSet(domains: readonly string[]): TDomainSet {
  const set = new Set(domains.map((d) => d.trim().toLowerCase()).filter((d) => d.length > 0));
  return { has: (domain) => domainIn(set, domain) };
}
