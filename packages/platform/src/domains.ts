// Domain membership by Set lookups: a domain matches itself or any parent in the set, so
// "eu.acme.com" is inside a set holding "acme.com". No regular expression on per-permission paths.

/** Exact-or-parent membership: "eu.acme.com" is in a set holding "acme.com". */
export function domainIn(set: ReadonlySet<string>, domain: string): boolean {
  let d = domain.toLowerCase();
  for (;;) {
    if (set.has(d)) return true;
    const dot = d.indexOf(".");
    if (dot < 0) return false;
    d = d.slice(dot + 1);
  }
}

/** The domain of an address, lower-cased; null when it is not an address. */
export function emailDomain(email: string): string | null {
  const at = email.lastIndexOf("@");
  return at < 0 || at === email.length - 1 ? null : email.slice(at + 1).toLowerCase();
}
