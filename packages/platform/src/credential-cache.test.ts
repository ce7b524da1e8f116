import { describe, expect, it } from "vitest";
import { CredentialCache, type TCachedCredential } from "./credential-cache";
import type { TPrincipal } from "./principal";

const principal = (orgId: string, kind: TPrincipal["kind"] = "api_key"): TPrincipal => ({
  kind,
  credentialId: `cred-${orgId}`,
  userId: "u",
  userEmail: "u@example.test",
  role: "OWNER",
  org: { id: orgId, name: orgId, plan: "business", isPartner: false },
});
const entry = (orgId: string, o: Partial<TCachedCredential> = {}): TCachedCredential => ({
  principal: principal(orgId),
  epoch: 1,
  validUntil: Number.POSITIVE_INFINITY,
  cachedAt: 0,
  lastUsedAt: 0,
  ...o,
});

describe("CredentialCache", () => {
  it("evicts the least recently used entry beyond its bound", () => {
    const cache = new CredentialCache({ maxEntries: 2, ttlMs: 1000, idleMs: 1000 });
    cache.set("a", entry("o1"));
    cache.set("b", entry("o1"));
    expect(cache.get("a", 1)).toBeDefined(); // a is now the most recent
    cache.set("c", entry("o1"));
    expect(cache.get("b", 1)).toBeUndefined();
    expect(cache.get("a", 1)).toBeDefined();
    expect(cache.get("c", 1)).toBeDefined();
  });

  it("forgets an entry after its TTL, and never keeps one past the credential's own expiry", () => {
    const cache = new CredentialCache({ maxEntries: 10, ttlMs: 1000, idleMs: 10_000 });
    cache.set("ttl", entry("o1"));
    cache.set("expiring", entry("o1", { validUntil: 500 }));
    expect(cache.get("expiring", 499)).toBeDefined();
    expect(cache.get("expiring", 500)).toBeUndefined();
    expect(cache.get("ttl", 999)).toBeDefined();
    expect(cache.get("ttl", 1000)).toBeUndefined();
  });

  it("applies a session's idle timeout from its last use", () => {
    const cache = new CredentialCache({ maxEntries: 10, ttlMs: 10_000, idleMs: 100 });
    cache.set("s", entry("o1", { principal: principal("o1", "session"), lastUsedAt: 0 }));
    expect(cache.get("s", 101)).toBeUndefined();
  });

  it("drops one organization's entries", () => {
    const cache = new CredentialCache({ maxEntries: 10, ttlMs: 1000, idleMs: 1000 });
    cache.set("a", entry("o1"));
    cache.set("b", entry("o2"));
    cache.dropOrganization("o1");
    expect(cache.get("a", 1)).toBeUndefined();
    expect(cache.get("b", 1)).toBeDefined();
  });
});
