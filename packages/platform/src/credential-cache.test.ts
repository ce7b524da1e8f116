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
    const [a, b, c] = [entry("o1", { epoch: 1 }), entry("o1", { epoch: 2 }), entry("o1", { epoch: 3 })];
    cache.set("a", a);
    cache.set("b", b);
    expect(cache.get("a", 1)).toBe(a); // a is now the most recent
    cache.set("c", c);
    expect(cache.size).toBe(2);
    expect(cache.get("b", 1)).toBeUndefined();
    expect(cache.get("a", 1)).toBe(a);
    expect(cache.get("c", 1)).toBe(c);
  });

  it("forgets an entry after its TTL, and never keeps one past the credential's own expiry", () => {
    const cache = new CredentialCache({ maxEntries: 10, ttlMs: 1000, idleMs: 10_000 });
    const ttl = entry("o1");
    const expiring = entry("o1", { validUntil: 500 });
    cache.set("ttl", ttl);
    cache.set("expiring", expiring);
    expect(cache.get("expiring", 499)).toBe(expiring);
    expect(cache.get("expiring", 500)).toBeUndefined();
    expect(cache.get("ttl", 999)).toBe(ttl);
    expect(cache.get("ttl", 1000)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it("applies a session's idle timeout from its last use", () => {
    const cache = new CredentialCache({ maxEntries: 10, ttlMs: 10_000, idleMs: 100 });
    const session = entry("o1", { principal: principal("o1", "session"), lastUsedAt: 0 });
    cache.set("s", session);
    expect(cache.get("s", 100)).toBe(session);
    expect(cache.get("s", 101)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it("drops one organization's entries", () => {
    const cache = new CredentialCache({ maxEntries: 10, ttlMs: 1000, idleMs: 1000 });
    const other = entry("o2");
    cache.set("a", entry("o1"));
    cache.set("a2", entry("o1"));
    cache.set("b", other);
    cache.dropOrganization("o1");
    expect(cache.size).toBe(1);
    expect(cache.get("a", 1)).toBeUndefined();
    expect(cache.get("a2", 1)).toBeUndefined();
    expect(cache.get("b", 1)).toBe(other);
  });
});
