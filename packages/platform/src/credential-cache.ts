import type { TPrincipal } from "./principal";

export type TCachedCredential = {
  principal: TPrincipal;
  /** The organization's credential epoch the principal was read at. */
  epoch: number;
  /** Expiry of the key or session, or the end of a plan grace period (ms). */
  validUntil: number;
  cachedAt: number;
  /** Last use seen by this process: a session's idle timeout runs from it. */
  lastUsedAt: number;
};

export type TCredentialCacheOptions = { maxEntries: number; ttlMs: number; idleMs: number };

/**
 * Resolved credentials by token hash: a bounded LRU whose entries also expire after `ttlMs`
 * (a safety net for changes made outside the service; revocations through it are seen at once
 * through the epoch) and never outlive the credential itself.
 */
export class CredentialCache {
  private readonly entries = new Map<string, TCachedCredential>();

  constructor(private readonly o: TCredentialCacheOptions) {}

  get size(): number {
    return this.entries.size;
  }

  get(hash: string, now: number): TCachedCredential | undefined {
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    const idleExpired = entry.principal.kind === "session" && now - entry.lastUsedAt > this.o.idleMs;
    if (now >= entry.validUntil || now - entry.cachedAt >= this.o.ttlMs || idleExpired) {
      this.entries.delete(hash);
      return undefined;
    }
    // Most recently used last: Map iteration order is insertion order.
    this.entries.delete(hash);
    this.entries.set(hash, entry);
    return entry;
  }

  set(hash: string, entry: TCachedCredential): void {
    this.entries.delete(hash);
    this.entries.set(hash, entry);
    while (this.entries.size > this.o.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }

  delete(hash: string): void {
    this.entries.delete(hash);
  }

  /** Drops every entry of one organization (a change this process made or learnt of). */
  dropOrganization(orgId: string): void {
    for (const [hash, entry] of this.entries) if (entry.principal.org.id === orgId) this.entries.delete(hash);
  }
}
