import { emailDomain } from "@posture/platform";
import { createJsonClient, type THttpOptions, type TTokenProvider } from "../http/client";
import { apiErrorMessage, SourceHttpError } from "../http/errors";
import { once } from "../shared/once";
import {
  SourceAuthError,
  type TAccessCheck,
  type TAccessRequirement,
  type TActivityEvent,
  type TCoverageGap,
} from "../types";
import { microsoftTokenProvider, type TMicrosoftCredentials } from "./auth";

// Microsoft 365 activity from the Office 365 Management Activity API
// (https://learn.microsoft.com/office/office-365-management-api/office-365-management-activity-api-reference):
// subscriptions per content type, content blobs listed per window of at most 24 hours within the
// last 7 days (paged by the NextPageUri header), each blob an array of audit records, mapped into
// the activity kinds. Decisions: docs/decisions.md, "Microsoft 365 activity and mass deletion".

export const MANAGE_BASE_URL = "https://manage.office.com";
export const MANAGE_DEFAULT_SCOPE = "https://manage.office.com/.default";
export const CONTENT_TYPES = ["Audit.SharePoint", "Audit.AzureActiveDirectory", "Audit.General"] as const;
export const MANAGEMENT_ACTIVITY_FEATURE = "Microsoft 365 audit activity";
export const MANAGEMENT_ACTIVITY_PERMISSION = "ActivityFeed.Read (Office 365 Management APIs)";

/** What the connect-time check reports for the feed (Entra admin centre: API permissions › Office 365 Management APIs). */
export const MANAGEMENT_ACTIVITY_ACCESS: TAccessRequirement = {
  feature: MANAGEMENT_ACTIVITY_FEATURE,
  permission: "ActivityFeed.Read",
  impact:
    "SharePoint and OneDrive file access, downloads, external shares and deletions and Entra consents are not read: sharing spikes, bulk access, OAuth bursts and mass deletions cannot be detected on Microsoft 365 (sign-ins still are, with AuditLog.Read.All).",
};

const SOURCE = "Office 365 Management Activity API";
const HOUR_MS = 3_600_000;
const WINDOW_MS = 24 * HOUR_MS;
/** The API refuses a start time more than 7 days back; a minute of margin for the request's travel. */
const MAX_LOOKBACK_MS = 7 * 24 * HOUR_MS - 60_000;

/** One audit record, the properties the mapping reads (Office 365 Management Activity API schema). */
export type TO365Record = {
  Id?: string;
  RecordType?: number;
  /** UTC, usually without a zone designator ("2015-06-29T20:03:19"). */
  CreationTime?: string;
  Operation?: string;
  UserId?: string;
  /** 0 Regular, 1 Reserved, 2 Admin, 3 DcAdmin, 4 System, 5 Application, 6 ServicePrincipal, 7 CustomPolicy, 8 SystemPolicy. */
  UserType?: number;
  Workload?: string;
  ResultStatus?: string;
  ObjectId?: string;
  // SharePoint / OneDrive
  ListItemUniqueId?: string;
  SourceFileName?: string;
  TargetUserOrGroupName?: string;
  TargetUserOrGroupType?: string;
  // Azure Active Directory
  Target?: Array<{ ID?: string; Type?: number }>;
  ModifiedProperties?: Array<{ Name?: string; NewValue?: string; OldValue?: string }>;
};

export type TO365Content = {
  contentType?: string;
  contentId?: string;
  contentUri?: string;
  contentCreated?: string;
  contentExpiration?: string;
};

export type TO365Subscription = { contentType?: string; status?: string; webhook?: unknown };

const ACCESS_OPS = new Set(["FileAccessed", "FilePreviewed"]);
/** SharePoint/OneDrive downloads, and Power BI's (Audit.General): a report exported or its .pbix downloaded. */
const DOWNLOAD_OPS = new Set(["FileDownloaded", "FileSyncDownloadedFull", "ExportReport", "DownloadReport"]);
const DELETE_OPS = new Set(["FileDeleted", "FileRecycled", "FileDeletedFirstStageRecycleBin"]);
/** Sharing operations whose target names who got access (CompanyLinkCreated is internal by definition). */
const SHARE_OPS = new Set(["SharingSet", "SharingInvitationCreated", "AddedToSecureLink"]);
/** UserType values of system, application and policy actors: not a person's behaviour. */
const NON_PERSON_USER_TYPES = new Set([4, 5, 6, 7, 8]);
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
const GUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/** CreationTime is UTC without a zone; an explicit zone is kept. */
function isoOf(creationTime: string | undefined): string | null {
  if (!creationTime) return null;
  const withZone = /(Z|[+-]\d\d:?\d\d)$/.test(creationTime) ? creationTime : `${creationTime}Z`;
  const ms = Date.parse(withZone);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/** A guest's UPN in the tenant (`ann_partner.com#EXT#@contoso.onmicrosoft.com`) back to `ann@partner.com`. */
function guestEmail(name: string): string {
  const lower = name.toLowerCase();
  const ext = lower.indexOf("#ext#");
  if (ext < 0) return lower;
  const local = lower.slice(0, ext);
  const at = local.lastIndexOf("_");
  return at < 0 ? local : `${local.slice(0, at)}@${local.slice(at + 1)}`;
}

/** Who an external share went to, or null when the target is inside the tenant. */
function externalTarget(record: TO365Record, internal: Set<string>): string | null {
  const raw = record.TargetUserOrGroupName?.trim();
  if (!raw) return record.TargetUserOrGroupType === "Guest" ? "guest" : null;
  const target = guestEmail(raw);
  if (EMAIL.test(target)) {
    return internal.has(emailDomain(target) ?? "") ? null : target;
  }
  // A group or a display name: external only when SharePoint says the grantee is a guest.
  return record.TargetUserOrGroupType === "Guest" ? target : null;
}

/** The consented application's id: the service principal names (app id first), else a GUID target. */
function consentedApp(record: TO365Record): string | undefined {
  const names = record.ModifiedProperties?.find((p) => p.Name === "TargetId.ServicePrincipalNames")?.NewValue;
  const fromNames = names ? GUID.exec(names)?.[0] : undefined;
  if (fromNames) return fromNames.toLowerCase();
  const ids = (record.Target ?? []).map((t) => t.ID ?? "").filter(Boolean);
  const guid = ids.find((id) => GUID.test(id) && !id.startsWith("ServicePrincipal_"));
  return (
    guid?.toLowerCase() ?? ids.find((id) => !GUID.test(id) && id !== "ServicePrincipal") ?? record.ObjectId
  );
}

/**
 * One audit record as an activity event, or null for operations behaviour analytics does not
 * read, failed operations, and system or application actors.
 */
export function mapO365Record(record: TO365Record, internalDomains: string[]): TActivityEvent | null {
  const id = record.Id;
  const at = isoOf(record.CreationTime);
  const actorEmail = record.UserId?.trim().toLowerCase();
  const op = record.Operation;
  if (!id || !at || !actorEmail || !op) return null;
  if (record.UserType !== undefined && NON_PERSON_USER_TYPES.has(record.UserType)) return null;
  // "app@sharepoint", "SHAREPOINT\system", service principal ids: not a person.
  if (!EMAIL.test(actorEmail)) return null;
  if (/^fail/i.test(record.ResultStatus ?? "")) return null;
  const base = { id, at, actorEmail };
  const resource = record.ListItemUniqueId || record.ObjectId;
  const withResource = resource ? { resourceId: resource } : {};
  if (ACCESS_OPS.has(op)) return { ...base, type: "file_access", ...withResource };
  if (DOWNLOAD_OPS.has(op)) return { ...base, type: "download", ...withResource };
  if (DELETE_OPS.has(op)) return { ...base, type: "file_delete", ...withResource };
  if (op === "AnonymousLinkCreated")
    return { ...base, type: "share_external", ...withResource, target: "anyone" };
  if (SHARE_OPS.has(op)) {
    const internal = new Set(internalDomains.map((d) => d.toLowerCase()));
    const target = externalTarget(record, internal);
    return target ? { ...base, type: "share_external", ...withResource, target } : null;
  }
  if (op === "UserLoggedIn") return { ...base, type: "login" };
  if (op === "Consent to application.") {
    const app = consentedApp(record);
    return {
      ...base,
      type: "oauth_grant",
      ...(record.ObjectId ? { resourceId: record.ObjectId } : {}),
      ...(app ? { target: app } : {}),
    };
  }
  return null;
}

type TReply = { status: number; body: unknown; headers: Headers };

/** The API's error code (`AF20024`…) out of its body, if any. */
function errorCode(body: unknown): string | undefined {
  const code = (body as { error?: { code?: unknown } } | null)?.error?.code;
  return typeof code === "string" ? code : undefined;
}

/** Why reading the feed stopped, as a coverage gap; the scan goes on without it. */
export class ManagementActivityGap extends Error {
  readonly gap: TCoverageGap;
  constructor(gap: TCoverageGap) {
    super(gap.detail);
    this.name = "ManagementActivityGap";
    this.gap = gap;
  }
}

export type TManagementActivityOptions = {
  credentials: TMicrosoftCredentials;
  loginBaseUrl?: string;
  /** Only tests override it (the fake); GCC / GCC High / DoD tenants use their own hosts. */
  manageBaseUrl?: string;
  http?: THttpOptions;
  /** The tenant's domains: a share to anyone else is external. */
  internalDomains: () => Promise<string[]>;
  /** Called once per problem: a missing permission, the audit log off, a subscription just started. */
  onGap: (gap: TCoverageGap) => void;
  now?: () => Date;
  tokens?: TTokenProvider;
};

export type TManagementActivity = {
  /**
   * Starts the subscriptions not yet enabled (connect time and the first read). Returns the
   * content types it started: their first blobs can take up to 12 hours to appear.
   */
  startSubscriptions: () => Promise<string[]>;
  /** Audit records since `since` (at most the API's 7 days), deduplicated by Id, mapped. */
  activity: (since: Date) => AsyncGenerator<TActivityEvent>;
  /** Connect-time probe: starts the subscriptions and answers whether the feed can be read. */
  checkAccess: () => Promise<TAccessCheck>;
};

export function createManagementActivity(opts: TManagementActivityOptions): TManagementActivity {
  const tokens =
    opts.tokens ??
    microsoftTokenProvider(opts.credentials, {
      loginBaseUrl: opts.loginBaseUrl,
      http: opts.http,
      scope: MANAGE_DEFAULT_SCOPE,
    });
  const base = new URL(opts.manageBaseUrl ?? MANAGE_BASE_URL);
  const tenant = encodeURIComponent(opts.credentials.tenantId);
  // Content and next-page links come from the API's answers: the client never hands the token to
  // another host than the feed's.
  const feed = createJsonClient({
    source: SOURCE,
    baseUrl: `${base.origin}${base.pathname.replace(/\/$/, "")}/api/v1.0/${tenant}/activity/feed`,
    tokens,
    http: opts.http,
  });
  const now = opts.now ?? (() => new Date());
  // PublisherIdentifier gives the requests the tenant's own throttling quota, not the shared one.
  const publisher = { PublisherIdentifier: opts.credentials.tenantId };

  async function call(method: "GET" | "POST", pathOrUrl: string, query: Record<string, string> = {}) {
    const response = await feed.send(method, pathOrUrl, query, method === "POST" ? {} : undefined);
    const body: unknown = await response.json().catch(() => null);
    return { status: response.status, body, headers: response.headers } satisfies TReply;
  }

  /** A refusal as the coverage gap it stands for; anything else as the error readJson would throw. */
  function refusal(reply: TReply, what: string): Error {
    const code = errorCode(reply.body);
    const message = apiErrorMessage(reply.body, `HTTP ${reply.status}`);
    if (reply.status === 401 || reply.status === 403 || code === "AF10001") {
      return new ManagementActivityGap({
        feature: MANAGEMENT_ACTIVITY_FEATURE,
        missing: MANAGEMENT_ACTIVITY_PERMISSION,
        detail: `${what} refused (${code ?? `HTTP ${reply.status}`}: ${message}): grant the application permission ActivityFeed.Read of "Office 365 Management APIs" with admin consent. SharePoint, OneDrive and Entra audit activity (shares, file access, downloads, deletions, consents) is not read; sign-ins still are.`,
      });
    }
    if (code === "AF20023" || code === "AF20011" || code === "AF20012" || /does not exist/i.test(message)) {
      return new ManagementActivityGap({
        feature: MANAGEMENT_ACTIVITY_FEATURE,
        missing: "Unified audit log (Microsoft Purview audit)",
        detail: `${what} refused (${code ?? `HTTP ${reply.status}`}: ${message}): turn on audit log search in Microsoft Purview (and re-enable the subscription if an admin disabled it). Until then only sign-ins are read.`,
      });
    }
    return new SourceHttpError(`${SOURCE}: ${what}: ${message} (HTTP ${reply.status})`, reply.status);
  }

  async function get<T>(pathOrUrl: string, query: Record<string, string>, what: string) {
    const reply = await call("GET", pathOrUrl, query);
    if (reply.status < 200 || reply.status >= 300) throw refusal(reply, what);
    return { body: reply.body as T, headers: reply.headers };
  }

  async function startSubscriptions(): Promise<string[]> {
    const { body } = await get<TO365Subscription[]>(
      "/subscriptions/list",
      publisher,
      "Listing subscriptions",
    );
    const enabled = new Set(
      (Array.isArray(body) ? body : []).filter((s) => s.status === "enabled").map((s) => s.contentType),
    );
    const started: string[] = [];
    for (const contentType of CONTENT_TYPES) {
      if (enabled.has(contentType)) continue;
      const reply = await call("POST", "/subscriptions/start", { contentType, ...publisher });
      // AF20024: already enabled (started meanwhile, e.g. by another reader): what we wanted.
      if (reply.status >= 200 && reply.status < 300) started.push(contentType);
      else if (errorCode(reply.body) !== "AF20024")
        throw refusal(reply, `Starting the ${contentType} subscription`);
    }
    return started;
  }

  // One start per adapter: the first read (or the connect-time check) does it.
  const subscriptions = once(startSubscriptions);

  async function* contentOf(contentType: string, start: Date, end: Date): AsyncGenerator<TO365Content> {
    let next: { url: string; query: Record<string, string> } | null = {
      url: "/subscriptions/content",
      query: {
        contentType,
        startTime: start.toISOString().slice(0, 19),
        endTime: end.toISOString().slice(0, 19),
        ...publisher,
      },
    };
    while (next) {
      const page: { body: TO365Content[]; headers: Headers } = await get<TO365Content[]>(
        next.url,
        next.query,
        `Listing ${contentType} content`,
      );
      const { body, headers } = page;
      yield* Array.isArray(body) ? body : [];
      const link: string | null = headers.get("NextPageUri");
      // The next-page link carries every parameter already.
      next = link ? { url: link, query: {} } : null;
    }
  }

  async function* activity(since: Date): AsyncGenerator<TActivityEvent> {
    const seen = new Set<string>();
    try {
      const started = await subscriptions();
      if (started.length > 0) {
        opts.onGap({
          feature: MANAGEMENT_ACTIVITY_FEATURE,
          missing: "Audit subscriptions just started",
          detail: `The ${started.join(", ")} subscriptions were started by this scan; Microsoft makes the first content available up to 12 hours later, so this scan may see little or no SharePoint, OneDrive and Entra audit activity. The next scans read it.`,
        });
      }
      const internalDomains = await opts.internalDomains();
      const end = now().getTime();
      const from = Math.max(since.getTime(), end - MAX_LOOKBACK_MS);
      for (const contentType of CONTENT_TYPES) {
        try {
          for (let t = from; t < end; t += WINDOW_MS) {
            const windowEnd = new Date(Math.min(end, t + WINDOW_MS));
            for await (const content of contentOf(contentType, new Date(t), windowEnd)) {
              if (!content.contentUri) continue;
              const { body } = await get<TO365Record[]>(
                content.contentUri,
                {},
                `Fetching ${contentType} content`,
              );
              for (const record of Array.isArray(body) ? body : []) {
                // Blobs overlap: the same record can arrive in two of them.
                if (!record.Id || seen.has(record.Id)) continue;
                seen.add(record.Id);
                const event = mapO365Record(record, internalDomains);
                if (event && Date.parse(event.at) >= since.getTime()) yield event;
              }
            }
          }
        } catch (error) {
          // One content type refused (its subscription disabled, AF20022/AF20023…): the others are still read.
          if (!(error instanceof SourceHttpError) || error.status >= 500) throw error;
          opts.onGap({
            feature: MANAGEMENT_ACTIVITY_FEATURE,
            missing: `${contentType} subscription`,
            detail: `${error.message}. The other audit content types are read.`,
          });
        }
      }
    } catch (error) {
      if (error instanceof ManagementActivityGap) return void opts.onGap(error.gap);
      // A token refused for this resource only (Graph answered): the same missing permission.
      if (error instanceof SourceAuthError) {
        return void opts.onGap({
          feature: MANAGEMENT_ACTIVITY_FEATURE,
          missing: MANAGEMENT_ACTIVITY_PERMISSION,
          detail: `${error.message}. SharePoint, OneDrive and Entra audit activity is not read; sign-ins still are.`,
        });
      }
      // The feed down after its retries: what was read is kept; the scan goes on with sign-ins.
      opts.onGap({
        feature: MANAGEMENT_ACTIVITY_FEATURE,
        missing: "Office 365 Management Activity API unavailable",
        detail: `${error instanceof Error ? error.message : String(error)}. The audit activity read before the failure is kept; the next scan re-reads the window.`,
      });
    }
  }

  async function checkAccess(): Promise<TAccessCheck> {
    try {
      const started = await subscriptions();
      return {
        ...MANAGEMENT_ACTIVITY_ACCESS,
        granted: true,
        ...(started.length > 0
          ? {
              detail: `Started ${started.join(", ")}: Microsoft makes the first content available up to 12 hours later.`,
            }
          : {}),
      };
    } catch (error) {
      const detail =
        error instanceof ManagementActivityGap
          ? error.gap.detail
          : error instanceof Error
            ? error.message
            : String(error);
      return { ...MANAGEMENT_ACTIVITY_ACCESS, granted: false, detail };
    }
  }

  return { startSubscriptions: subscriptions, activity, checkAccess };
}
