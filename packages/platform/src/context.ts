import type { TResolver } from "./outbound/guard";
import type { Db } from "@posture/db";
import type { TDataWrites } from "./data-epochs";
import type { TJobQueue } from "./jobs";
import type { TPrincipal } from "./principal";
import type { RateLimits } from "./rate-limit";

export type TLogger = {
  info: (obj: object, msg?: string) => void;
  warn: (obj: object, msg?: string) => void;
  error: (obj: object, msg?: string) => void;
  debug: (obj: object, msg?: string) => void;
};

export type TCookieOptions = { maxAgeSeconds?: number };

/**
 * What a procedure may say about the HTTP response without knowing it is HTTP:
 * a success status other than 200, extra headers, and cookies. The gateway applies it.
 */
export class ResponseControl {
  status: number | undefined;
  readonly headers: Record<string, string> = {};
  readonly cookies: string[] = [];
  private readonly finished: Array<() => void> = [];
  constructor(private readonly secureCookies: boolean) {}

  /**
   * Work to start once the response has been sent (or the client went away), so that it does not
   * delay the answer nor show in its timing. The gateway runs these; errors are the callback's own.
   */
  afterResponse(fn: () => void): void {
    this.finished.push(fn);
  }

  /** Called by the gateway when the response is done; each callback runs once. */
  runAfterResponse(): void {
    for (const fn of this.finished.splice(0)) fn();
  }

  setCookie(name: string, value: string, opts: TCookieOptions = {}): void {
    const parts = [`${name}=${value}`, "Path=/", "HttpOnly", "SameSite=Lax"];
    if (this.secureCookies) parts.push("Secure");
    if (opts.maxAgeSeconds !== undefined) parts.push(`Max-Age=${opts.maxAgeSeconds}`);
    this.cookies.push(parts.join("; "));
  }

  clearCookie(name: string): void {
    this.setCookie(name, "", { maxAgeSeconds: 0 });
  }
}

export type TCredentialFailure = "malformed" | "unknown" | "revoked" | "expired" | "no_membership";

export type TRuntime = {
  /** 32-byte key for AES-256-GCM encryption of secrets at rest (source credentials, webhook secrets). */
  encryptionKey: Buffer;
  /** Public origin used in links (`link` fields of events, docs). */
  publicUrl: string;
  webhookAllowPrivateTargets: boolean;
  /** DNS for outbound calls to tenant-supplied URLs; tests inject answers here (system DNS otherwise). */
  outboundResolver?: TResolver;
  /**
   * Where real-mode source adapters send requests, by the base-URL names of each adapter's
   * endpoints (`TSourceEndpoints` of @posture/connectors); the vendors' public APIs when unset.
   */
  sourceEndpoints?: {
    google?: Partial<Record<string, string>>;
    microsoft?: Partial<Record<string, string>>;
    github?: { baseUrl: string };
  };
};

/** Named dependency checks for GET /api/health; each throws when its dependency is down. */
export type TProbes = Record<string, () => Promise<void>>;

export type TContext = {
  /** The request's database: under the interactive bound (DB_REQUEST_TIMEOUT_MS) on the gateway. */
  db: Db;
  /**
   * The same database under the pool's own, longer bounds: `db` of procedures whose meta says
   * they read long (`download`, `longReads`), swapped in by the procedure factory. Unset: `db`.
   */
  reportDb?: Db;
  principal: TPrincipal | null;
  /** Set when a credential was presented but refused: the 401 says why (revoked, expired…). */
  credentialFailure: TCredentialFailure | null;
  ip: string;
  requestId: string;
  userAgent: string | undefined;
  response: ResponseControl;
  limits: RateLimits;
  jobs: TJobQueue;
  runtime: TRuntime;
  log: TLogger;
  probes: TProbes;
  /**
   * Publishes a change of the organization's credentials (a key revoked, a session ended, a role
   * or the plan changed) to every gateway replica before the response leaves. The procedure
   * factory calls it after each successful mutation; cheap when nothing changed.
   */
  publishCredentialChanges: (orgId: string) => Promise<void>;
  /**
   * Marks the organization's data as being written around each mutation (data-epochs.ts), so
   * that no replica's read cache serves what it changes. Unset: nothing caches reads.
   */
  dataWrites?: TDataWrites;
  /**
   * What the REST layer found wrong with the request's shape before validation (a field or query
   * parameter the operation does not take, a body that is not an object): thrown by the access
   * middleware once credentials, plan and role have passed, so it answers in the contract's order
   * (401 → 403 → 402 → 403 → 400), like the input schema's own errors.
   */
  requestProblem?: Error | null;
  /** The request's Idempotency-Key header, when it had one (kept with what it started, e.g. an apply). */
  idempotencyKey?: string | null;
};

/** The context once an auth guard has run: the principal is known. */
export type TAuthedContext = TContext & { principal: TPrincipal };
