import type { Db } from "@posture/db";
import type { TCredentialFailure, TLogger } from "./context";
import { CredentialCache, type TCredentialCacheOptions } from "./credential-cache";
import { CredentialTouches } from "./credential-touches";
import {
  lookupApiKey,
  lookupSession,
  readCredentialEpoch,
  SESSION_IDLE_MS,
  sha256Hex,
  type TCredentialLookup,
} from "./credentials";
import type { TDataEpoch } from "./data-epochs";
import { metrics } from "./metrics";
import type { TPrincipal } from "./principal";
import type { RateLimits, TGateDecision, TRateDecision } from "./rate-limit";

/** What the request presented, parsed without any I/O. */
export type TPresented =
  { kind: "api_key"; token: string } | { kind: "session"; token: string } | { kind: "malformed" } | null;

export type TGateResult = {
  /** The limit decision to report in headers; `allowed: false` is a 429. */
  decision: TRateDecision;
  principal: TPrincipal | null;
  failure: TCredentialFailure | null;
  /** The organization's credential epoch the principal was checked against. */
  epoch: number | null;
  /** The organization's data epoch read in the same round trip (data-epochs.ts); null: do not cache. */
  dataEpoch: TDataEpoch | null;
};

export type TAccessGateOptions = {
  db: Db;
  limits: RateLimits;
  log: TLogger;
  cache?: Partial<TCredentialCacheOptions>;
  touchFlushMs?: number;
};

const strip = ({ epoch: _e, dataEpoch: _d, ...d }: TGateDecision): TRateDecision => d;

/**
 * The request path's checks in one place, cheapest first:
 *
 * 1. No credential: the anonymous per-client bucket, one Redis round trip.
 * 2. A credential this process has resolved before: the authenticated bucket and the
 *    organization's published credential epoch in one Redis round trip (one Lua call). The
 *    cached principal is used only if the epoch is the one it was read at: any revocation or
 *    membership/plan change increments the epoch in PostgreSQL (triggers) and is published to
 *    Redis before the request that made it is answered, so every replica refuses at once.
 * 3. A credential not in the cache: the client's credential-failure bucket is read first (no
 *    increment) and an exhausted one is a 429 before any database work, so a flood of made-up
 *    credentials costs at most that budget (20 a minute) in lookups; then PostgreSQL (one lookup
 *    per token in flight), then the bucket the outcome belongs to: a valid credential the
 *    authenticated one — whatever the client spent anonymously — and a failed one the anonymous
 *    one and the failure bucket.
 */
export class AccessGate {
  private readonly cache: CredentialCache;
  private readonly inFlight = new Map<string, Promise<TCredentialLookup>>();
  readonly touches: CredentialTouches;

  /** The limiter the gate charges: what settles a deferred charge (a conditional GET). */
  get limits(): RateLimits {
    return this.o.limits;
  }

  constructor(private readonly o: TAccessGateOptions) {
    this.cache = new CredentialCache({
      maxEntries: o.cache?.maxEntries ?? 10_000,
      ttlMs: o.cache?.ttlMs ?? 30_000,
      idleMs: o.cache?.idleMs ?? SESSION_IDLE_MS,
    });
    this.touches = new CredentialTouches(
      o.db,
      (err) => o.log.warn({ err }, "could not record credential use"),
      o.touchFlushMs,
    );
  }

  /** `defer`: a conditional GET, counted only once its answer is known not to be a 304 (`settle`). */
  async check(presented: TPresented, client: string, cost = 1, defer = false): Promise<TGateResult> {
    const { limits } = this.o;
    if (presented === null || presented.kind === "malformed") {
      const d = await limits.hit("anonymous", client, { cost, defer });
      return {
        decision: strip(d),
        principal: null,
        failure: presented ? "malformed" : null,
        epoch: null,
        dataEpoch: null,
      };
    }
    const now = Date.now();
    const hash = sha256Hex(presented.token);
    const cached = this.cache.get(hash, now);
    if (cached) {
      const orgId = cached.principal.org.id;
      const d = await limits.hit("authenticated", client, { cost, defer, epoch: { orgId, data: true } });
      if (d.epoch !== null && d.epoch === cached.epoch) {
        metrics.credentialChecks.inc({ source: "cache", outcome: "ok" });
        cached.lastUsedAt = now;
        this.touches.record(cached.principal.kind, cached.principal.credentialId, now);
        return {
          decision: strip(d),
          principal: cached.principal,
          failure: null,
          epoch: cached.epoch,
          dataEpoch: d.dataEpoch,
        };
      }
      // Changed since it was cached (or Redis is unreachable): the database decides, and the
      // request has already been counted.
      this.cache.delete(hash);
      metrics.credentialChecks.inc({ source: "cache", outcome: "stale" });
      const fresh = await this.lookup(presented, hash);
      if (!fresh.ok) return this.failed(client, cost, fresh.reason);
      const published = await limits.hit("authenticated", client, {
        cost: 0,
        epoch: { orgId: fresh.principal.org.id, atLeast: fresh.epoch },
      });
      this.remember(hash, fresh, published.epoch, now);
      // The data epoch was read before the lookup, so whatever the request reads is no older.
      return {
        decision: strip(d),
        principal: fresh.principal,
        failure: null,
        epoch: fresh.epoch,
        dataEpoch: d.dataEpoch,
      };
    }

    const peek = await limits.hit("credentialFailures", client, { cost: 0 });
    if (!peek.allowed) {
      return { decision: strip(peek), principal: null, failure: null, epoch: null, dataEpoch: null };
    }
    const found = await this.lookup(presented, hash);
    if (!found.ok) return this.failed(client, cost, found.reason);
    const d = await limits.hit("authenticated", client, {
      cost,
      defer,
      epoch: { orgId: found.principal.org.id, atLeast: found.epoch, data: true },
    });
    this.remember(hash, found, d.epoch, now);
    // Read after the lookup, before the request's own reads: what those read is no older.
    return {
      decision: strip(d),
      principal: found.principal,
      failure: null,
      epoch: found.epoch,
      dataEpoch: d.dataEpoch,
    };
  }

  /**
   * A request that needs no credential and is counted in a budget of its own (the API
   * reference): one Redis round trip, no credential resolution.
   */
  async checkStatic(client: string): Promise<TGateResult> {
    const d = await this.o.limits.hit("docs", client);
    return { decision: strip(d), principal: null, failure: null, epoch: null, dataEpoch: null };
  }

  /** A credential that failed its lookup: the request is anonymous, and the failure is counted. */
  private async failed(client: string, cost: number, reason: TCredentialFailure): Promise<TGateResult> {
    const [anon] = await Promise.all([
      this.o.limits.hit("anonymous", client, { cost }),
      this.o.limits.hit("credentialFailures", client, { cost: 1 }),
    ]);
    return { decision: strip(anon), principal: null, failure: reason, epoch: null, dataEpoch: null };
  }

  /** One database lookup per token at a time: a burst of requests with a new key shares it. */
  private lookup(presented: Exclude<TPresented, null | { kind: "malformed" }>, hash: string) {
    let pending = this.inFlight.get(hash);
    if (!pending) {
      pending = (
        presented.kind === "api_key"
          ? lookupApiKey(this.o.db, presented.token)
          : lookupSession(this.o.db, presented.token)
      )
        .then((r) => {
          metrics.credentialChecks.inc({ source: "lookup", outcome: r.ok ? "ok" : r.reason });
          return r;
        })
        .finally(() => this.inFlight.delete(hash));
      this.inFlight.set(hash, pending);
    }
    return pending;
  }

  private remember(
    hash: string,
    found: Extract<TCredentialLookup, { ok: true }>,
    published: number | null,
    now: number,
  ): void {
    const { principal } = found;
    this.touches.record(principal.kind, principal.credentialId, now, found.lastUsedAt);
    // A published epoch above the one just read means a change committed meanwhile: the
    // principal may already be stale, so it serves this request only.
    if (published === null || published !== found.epoch) return;
    this.cache.set(hash, {
      principal,
      epoch: found.epoch,
      validUntil: found.validUntil,
      cachedAt: now,
      lastUsedAt: now,
    });
  }

  /**
   * After a mutation: if the organization's credential epoch moved (a key revoked, a session
   * ended, a role or the plan changed), publish it before the response leaves, so that no
   * replica serves a cached credential of that organization from then on.
   */
  async afterMutation(orgId: string, knownEpoch: number | null): Promise<void> {
    const epoch = await readCredentialEpoch(this.o.db, orgId);
    if (epoch === knownEpoch) return;
    this.cache.dropOrganization(orgId);
    await this.o.limits.publishEpoch(orgId, epoch);
  }

  close(): Promise<void> {
    return this.touches.close();
  }
}
