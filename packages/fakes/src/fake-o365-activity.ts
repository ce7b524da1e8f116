import { CONTENT_TYPES, type TO365Record } from "@posture/connectors/wire";
import {
  createTokenBook,
  pageAt,
  startFakeServer,
  type TFakeRequest,
  type TFakeResponse,
  type TFakeServer,
} from "./fake-server";
import { oauthError } from "./graph-errors";

// A fake of the Office 365 Management Activity API and of the identity platform's token endpoint
// for its resource, written from the API reference
// (learn.microsoft.com/office/office-365-management-api/office-365-management-activity-api-reference):
// subscriptions list/start, content listed per window (both bounds or neither, at most 24 hours
// apart, the start at most 7 days back, else AF20030), paged by the NextPageUri header, content
// blobs by their contentUri, AF-coded error bodies, AF429 throttling with Retry-After.

export type TO365Blob = { contentType: string; contentId: string; created: string; records: TO365Record[] };

export type TO365ActivityFixture = {
  tenantId: string;
  /** Content types whose subscription is already enabled. */
  subscriptions?: string[];
  blobs: TO365Blob[];
  /** The application was not granted ActivityFeed.Read: every feed call answers 401 AF10001. */
  withoutPermission?: boolean;
  /** Audit log search never turned on: starting a subscription fails as for an unprovisioned tenant. */
  auditLogOff?: boolean;
};

export type TFakeO365Activity = TFakeServer & {
  /** Content types started through this fake, in order. */
  started: string[];
  /** Every access token issued so far stops working, as when tokens expire or are revoked. */
  expireTokens: () => void;
};

const MANAGE_SCOPE = "https://manage.office.com/.default";
const GRAPH_SCOPE = "https://graph.microsoft.com/.default";
const DAY_MS = 86_400_000;

const afError = (status: number, code: string, message: string): TFakeResponse => ({
  status,
  body: { error: { code, message } },
});

/** The API's accepted datetime forms: YYYY-MM-DD, YYYY-MM-DDTHH:MM, YYYY-MM-DDTHH:MM:SS (UTC). */
function parseTime(value: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?Z?$/.test(value)) return null;
  const ms = Date.parse(value.endsWith("Z") || value.length === 10 ? value : `${value}Z`);
  return Number.isNaN(ms) ? null : ms;
}

/**
 * Starts the fake. `graphLoginUrl`: token requests for Microsoft Graph are relayed there (the Graph
 * fake), so one login URL serves both resources as login.microsoftonline.com does; without it, a
 * Graph-audience token is issued here and the feed refuses it (401), as the real API does.
 */
export async function startFakeO365Activity(opts: {
  fixture: TO365ActivityFixture;
  clientId: string;
  clientSecret: string;
  graphLoginUrl?: string;
  /** Content entries per listing page (the real API's limit is unpublished). */
  pageSize?: number;
  now?: () => Date;
}): Promise<TFakeO365Activity> {
  const { fixture } = opts;
  const now = () => (opts.now ? opts.now() : new Date()).getTime();
  const manageTokens = createTokenBook("eyJhdWQiOiJtYW5hZ2Ui.");
  const graphTokens = createTokenBook("eyJhdWQiOiJncmFwaCJ9.");
  const enabled = new Set(fixture.subscriptions ?? []);
  const expired = new Set<string>();
  const bearer = (req: TFakeRequest) =>
    /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ""))?.[1] ?? "";
  const started: string[] = [];
  const size = opts.pageSize ?? 100;

  async function issueToken(tenant: string, req: TFakeRequest): Promise<TFakeResponse> {
    const form = new URLSearchParams(req.body);
    const scope = form.get("scope");
    if (scope === GRAPH_SCOPE && opts.graphLoginUrl) {
      const relayed = await fetch(`${opts.graphLoginUrl.replace(/\/$/, "")}${req.path}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: req.body,
      });
      return { status: relayed.status, body: await relayed.json() };
    }

    if (tenant !== fixture.tenantId)
      return oauthError(400, "invalid_request", `AADSTS90002: Tenant '${tenant}' not found.`);
    if (form.get("grant_type") !== "client_credentials")
      return oauthError(
        400,
        "unsupported_grant_type",
        "AADSTS70003: The app requested an unsupported grant type.",
      );
    if (form.get("client_id") !== opts.clientId)
      return oauthError(
        400,
        "unauthorized_client",
        `AADSTS700016: Application '${form.get("client_id")}' was not found.`,
      );
    if (form.get("client_secret") !== opts.clientSecret)
      return oauthError(401, "invalid_client", "AADSTS7000215: Invalid client secret provided.");
    const book = scope === MANAGE_SCOPE ? manageTokens : scope === GRAPH_SCOPE ? graphTokens : null;
    if (!book)
      return oauthError(400, "invalid_scope", "AADSTS1002012: The provided value for scope is not valid.");
    return {
      status: 200,
      body: { token_type: "Bearer", expires_in: 3599, ext_expires_in: 3599, access_token: book.issue() },
    };
  }

  function content(req: TFakeRequest, baseUrl: string, root: string): TFakeResponse {
    const q = req.query;
    const contentType = q.get("contentType");
    if (!contentType) return afError(400, "AF20001", "Missing parameter: contentType.");
    if (
      !(CONTENT_TYPES as readonly string[]).includes(contentType) &&
      contentType !== "Audit.Exchange" &&
      contentType !== "DLP.All"
    )
      return afError(400, "AF20020", "The specified content type is not valid.");
    if (!enabled.has(contentType))
      return afError(400, "AF20022", "No subscription found for the specified content type.");
    const startRaw = q.get("startTime");
    const endRaw = q.get("endTime");
    const windowError = afError(
      400,
      "AF20030",
      "Start time and end time must both be specified (or both omitted) and must be less than or equal to 24 hours apart, with the start time no more than 7 days in the past.",
    );
    let start: number;
    let end: number;
    if (startRaw === null && endRaw === null) {
      end = now();
      start = end - DAY_MS;
    } else {
      if (startRaw === null || endRaw === null) return windowError;
      const s = parseTime(startRaw);
      const e = parseTime(endRaw);
      if (s === null)
        return afError(400, "AF20002", "Invalid parameter type: startTime. Expected type: datetime");
      if (e === null)
        return afError(400, "AF20002", "Invalid parameter type: endTime. Expected type: datetime");
      if (e - s > DAY_MS || e < s || s < now() - 7 * DAY_MS) return windowError;
      start = s;
      end = e;
    }
    const listed = fixture.blobs
      .filter((b) => b.contentType === contentType)
      .filter((b) => {
        const created = Date.parse(b.created);
        return created >= start && created < end;
      })
      .sort((a, b) => Date.parse(a.created) - Date.parse(b.created));
    const at = pageAt(listed, q.get("nextPage"), size);
    if (at === "invalid") return afError(400, "AF20031", `Invalid nextPage Input: ${q.get("nextPage")}.`);
    const headers: Record<string, string> = {};
    if (at.nextToken !== undefined) {
      const next = new URLSearchParams(q);
      next.set("nextPage", at.nextToken);
      headers.NextPageUri = `${baseUrl}${req.path}?${next.toString()}`;
    }
    return {
      status: 200,
      headers,
      body: at.page.map((b) => ({
        contentType: b.contentType,
        contentId: b.contentId,
        contentUri: `${baseUrl}${root}/audit/${encodeURIComponent(b.contentId)}`,
        contentCreated: new Date(b.created).toISOString(),
        contentExpiration: new Date(Date.parse(b.created) + 7 * DAY_MS).toISOString(),
      })),
    };
  }

  async function feed(
    req: TFakeRequest,
    baseUrl: string,
    tenant: string,
    op: string,
  ): Promise<TFakeResponse> {
    if (!manageTokens.accepts(req) || expired.has(bearer(req))) {
      // A token for another audience (Graph) or none at all: refused before anything else.
      return { status: 401, body: { Message: "Authorization has been denied for this request." } };
    }
    if (tenant !== fixture.tenantId)
      return afError(
        400,
        "AF20010",
        `The tenant ID passed in the URL (${tenant}) does not match the tenant ID passed in the access token (${fixture.tenantId}).`,
      );
    if (fixture.withoutPermission)
      return afError(
        401,
        "AF10001",
        "The permission set () sent in the request did not include the expected permission ActivityFeed.Read.",
      );
    const root = `/api/v1.0/${encodeURIComponent(tenant)}/activity/feed`;
    if (op === "subscriptions/list" && req.method === "GET") {
      return {
        status: 200,
        body: [...enabled].map((contentType) => ({ contentType, status: "enabled", webhook: null })),
      };
    }
    if (op === "subscriptions/start" && req.method === "POST") {
      const contentType = req.query.get("contentType");
      if (!contentType) return afError(400, "AF20001", "Missing parameter: contentType.");
      if (!(CONTENT_TYPES as readonly string[]).includes(contentType))
        return afError(400, "AF20020", "The specified content type is not valid.");
      if (fixture.auditLogOff) {
        // What tenants without the unified audit log get (MicrosoftDocs/office-365-management-api#89).
        return afError(
          400,
          `StartSubscription [TenantId=${tenant},ContentType=${contentType}] failed. Exception`,
          `Microsoft.Office.Compliance.Audit.DataServiceException: Tenant ${tenant} does not exist.`,
        );
      }
      if (enabled.has(contentType))
        return afError(400, "AF20024", "The subscription is already enabled. No property change.");
      enabled.add(contentType);
      started.push(contentType);
      return { status: 200, body: { contentType, status: "enabled", webhook: null } };
    }
    if (op === "subscriptions/content" && req.method === "GET") return content(req, baseUrl, root);
    const blob = /^audit\/(.+)$/.exec(op);
    if (blob && req.method === "GET") {
      const id = decodeURIComponent(blob[1] ?? "");
      const found = fixture.blobs.find((b) => b.contentId === id);
      if (!found) return afError(400, "AF20050", `The specified content (${id}) does not exist.`);
      if (!enabled.has(found.contentType))
        return afError(400, "AF20022", "No subscription found for the specified content type.");
      return { status: 200, body: found.records };
    }
    return {
      status: 404,
      body: { error: { code: "NotFound", message: `No operation ${req.method} ${op}.` } },
    };
  }

  const server = await startFakeServer({
    faultBody: (status) =>
      status === 429
        ? {
            error: {
              code: "AF429",
              message: `Too many requests. Method=GET, PublisherId=${fixture.tenantId}`,
            },
          }
        : { error: { code: "AF50000", message: "An internal error occurred. Retry the request." } },
    handle: (req, baseUrl) => {
      const tokenPath = /^\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(req.path);
      if (req.method === "POST" && tokenPath) return issueToken(decodeURIComponent(tokenPath[1] ?? ""), req);
      const feedPath = /^\/api\/v1\.0\/([^/]+)\/activity\/feed\/(.+)$/.exec(req.path);
      if (feedPath) return feed(req, baseUrl, decodeURIComponent(feedPath[1] ?? ""), feedPath[2] ?? "");
      return { status: 404, body: { error: { code: "NotFound", message: `No resource ${req.path}.` } } };
    },
  });
  return {
    ...server,
    started,
    expireTokens: () => {
      for (const t of manageTokens.issued) expired.add(t);
    },
  };
}

const isoSeconds = (at: Date | string) => new Date(at).toISOString().slice(0, 19);

/** A SharePoint / OneDrive audit record as the feed returns it (CreationTime without a zone). */
export function sharePointRecord(o: {
  id: string;
  at: Date | string;
  user: string;
  operation: string;
  file?: string;
  target?: string;
  targetType?: string;
  userType?: number;
}): TO365Record {
  return {
    Id: o.id,
    RecordType: o.operation.startsWith("Sharing") || o.operation.includes("Link") ? 14 : 6,
    CreationTime: isoSeconds(o.at),
    Operation: o.operation,
    UserType: o.userType ?? 0,
    UserId: o.user,
    Workload: o.user.endsWith("onmicrosoft.com") ? "OneDrive" : "SharePoint",
    ObjectId: `https://contoso.sharepoint.com/sites/finance/Shared Documents/${o.file ?? "report.xlsx"}`,
    ListItemUniqueId: `li-${o.file ?? "report.xlsx"}`,
    SourceFileName: o.file ?? "report.xlsx",
    ...(o.target ? { TargetUserOrGroupName: o.target } : {}),
    ...(o.targetType ? { TargetUserOrGroupType: o.targetType } : {}),
  };
}

/** An Entra (Azure AD) audit record: UserLoggedIn, UserLoginFailed, "Consent to application."… */
export function azureAdRecord(o: {
  id: string;
  at: Date | string;
  user: string;
  operation: string;
  appId?: string;
  appName?: string;
  resultStatus?: string;
}): TO365Record {
  return {
    Id: o.id,
    RecordType: o.operation === "Consent to application." ? 8 : 15,
    CreationTime: isoSeconds(o.at),
    Operation: o.operation,
    UserType: 0,
    UserId: o.user,
    Workload: "AzureActiveDirectory",
    ResultStatus: o.resultStatus ?? "Success",
    ObjectId: o.appId ? `sp-${o.appId}` : o.user,
    ...(o.appId
      ? {
          ModifiedProperties: [
            { Name: "ConsentContext.IsAdminConsent", NewValue: "False", OldValue: "" },
            {
              Name: "TargetId.ServicePrincipalNames",
              NewValue: `${o.appId};https://app.example/${o.appId}`,
              OldValue: "",
            },
          ],
          Target: [
            { ID: `ServicePrincipal_sp-${o.appId}`, Type: 2 },
            { ID: o.appName ?? "Some App", Type: 1 },
          ],
        }
      : {}),
  };
}

/**
 * Records packed into content blobs of `perBlob`, each made available (`created`) `delayMin`
 * minutes after its last record, as the feed publishes them late; never later than `notAfter`.
 */
export function blobsOf(
  contentType: string,
  records: TO365Record[],
  o: { perBlob?: number; delayMin?: number; notAfter?: Date; prefix?: string } = {},
): TO365Blob[] {
  const per = o.perBlob ?? 50;
  const sorted = [...records].sort((a, b) => (a.CreationTime ?? "").localeCompare(b.CreationTime ?? ""));
  const out: TO365Blob[] = [];
  for (let i = 0; i < sorted.length; i += per) {
    const chunk = sorted.slice(i, i + per);
    const last = Date.parse(`${chunk[chunk.length - 1]?.CreationTime ?? ""}Z`);
    const created = Math.min(
      last + (o.delayMin ?? 30) * 60_000,
      (o.notAfter ?? new Date()).getTime() - 60_000,
    );
    out.push({
      contentType,
      contentId: `${o.prefix ?? contentType}$${i / per}`,
      created: new Date(created).toISOString(),
      records: chunk,
    });
  }
  return out;
}
