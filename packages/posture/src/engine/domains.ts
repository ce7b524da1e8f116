// Domain membership by Set lookups: a domain matches itself or any parent in the set, so
// "eu.acme.com" is internal when "acme.com" is. No regex on the per-permission path.

export type TDomainSet = { has: (domain: string) => boolean };

export function domainSet(domains: readonly string[]): TDomainSet {
  const set = new Set(domains.map((d) => d.trim().toLowerCase()).filter((d) => d.length > 0));
  return {
    has: (domain) => {
      let d = domain.toLowerCase();
      for (;;) {
        if (set.has(d)) return true;
        const dot = d.indexOf(".");
        if (dot < 0) return false;
        d = d.slice(dot + 1);
      }
    },
  };
}

/** The domain of an address, lower-cased; null when it is not an address. */
export function emailDomain(email: string): string | null {
  const at = email.lastIndexOf("@");
  return at < 0 || at === email.length - 1 ? null : email.slice(at + 1).toLowerCase();
}
