import { createJsonClient, sendWithRetry, type THttpOptions, type TJsonClient } from "../http/client";
import { apiErrorMessage } from "../http/errors";
import { pagesByToken } from "../http/paginate";
import { workspaceOf } from "../shared/normalise";
import { once } from "../shared/once";
import {
  SourceAuthError,
  SourceUnavailableError,
  type TAccessCheck,
  type TActivityEvent,
  type TAppGrant,
  type TSourceAdapter,
  type TSourceUser,
  type TWorkspace,
} from "../types";
import { GOOGLE_ACCESS, GOOGLE_FEATURE, GOOGLE_SCOPE } from "./access";
import {
  type TGActivityList,
  type TGDomainList,
  type TGLicenseAssignmentList,
  type TGTokenList,
  type TGUserList,
} from "./api-types";
import { GOOGLE_TOKEN_URL, googleTokens, type TGoogleCredentials, type TGoogleTokens } from "./auth";
import { createDriveChangeFeed } from "./changes";
import { createDriveReader } from "./drive";
import { createGapBook } from "./gaps";
import { readGoogleGroups } from "./groups";
import { readLabelCatalogue, type TLabelCatalogue } from "./labels";
import { type TAgentCatalogEntry } from "../agents/catalog";
import { mapActivity, mapDelegatedClient, mapToken, mapUser, type TDelegatedClient } from "./map";
import { GOOGLE_SETTINGS_ACCESS, readGoogleSettings } from "./settings";

const SOURCE = "Google Workspace";

/** One gap for both app-grant reads of the Reports API (grant dates, domain-wide delegations). */
const reportsRefused = (message: string) =>
  `App grants carry the user's creation date, not the grant's, and clients with domain-wide delegation (app-wide access) are not listed: ${message}`;

/** Where the APIs live; only tests (and the lead's fakes) override these, never user input. */
export type TGoogleEndpoints = {
  driveBaseUrl?: string;
  adminBaseUrl?: string;
  cloudIdentityBaseUrl?: string;
  /** Drive Labels API v2: https://drivelabels.googleapis.com */
  drivelabelsBaseUrl?: string;
  /** Enterprise License Manager: https://licensing.googleapis.com */
  licensingBaseUrl?: string;
  tokenUrl?: string;
  /** Where a bare access token's scopes are looked up: https://oauth2.googleapis.com/tokeninfo */
  tokenInfoUrl?: string;
};

/**
 * Gemini's product id in the Enterprise License Manager (Google's "Products and SKUs": the Gemini
 * add-ons, e.g. Gemini Business 1010470003, Gemini Enterprise 1010470001, share it).
 */
export const GEMINI_PRODUCT_ID = "101047";

export type TGoogleConfig = {
  /** Primary domain; when absent it is read from the Directory domains API. */
  domain?: string;
  internalDomains?: string[];
};

/** Users whose My Drive is listed at once (each through its own impersonated token). */
export const DEFAULT_USER_CONCURRENCY = 4;

export function createGoogleWorkspaceAdapter(opts: {
  credentials: TGoogleCredentials;
  config?: TGoogleConfig;
  endpoints?: TGoogleEndpoints;
  http?: THttpOptions;
  /** Users (and shared drives) read concurrently; DEFAULT_USER_CONCURRENCY when absent. */
  concurrency?: number;
  /** The agent catalog apps are matched against (agents/catalog.json when absent). */
  agentCatalog?: readonly TAgentCatalogEntry[];
}): TSourceAdapter {
  const config = opts.config ?? {};
  const endpoints = opts.endpoints ?? {};
  const tokens = googleTokens(opts.credentials, {
    tokenUrl: endpoints.tokenUrl ?? GOOGLE_TOKEN_URL,
    http: opts.http,
  });
  const adminSubject = tokens.adminSubject ?? "";
  const baseUrls = {
    drive: endpoints.driveBaseUrl ?? "https://www.googleapis.com",
    admin: endpoints.adminBaseUrl ?? "https://admin.googleapis.com",
    cloudIdentity: endpoints.cloudIdentityBaseUrl ?? "https://cloudidentity.googleapis.com",
    labels: endpoints.drivelabelsBaseUrl ?? "https://drivelabels.googleapis.com",
    licensing: endpoints.licensingBaseUrl ?? "https://licensing.googleapis.com",
  };
  // Every API call acts as a subject with exactly the scopes it needs (see auth.ts).
  const client = (baseUrl: string, subject: string, scopes: readonly string[]) =>
    createJsonClient({ source: SOURCE, baseUrl, tokens: tokens.as(subject, scopes), http: opts.http });
  const directory = (scope: string) => client(baseUrls.admin, adminSubject, [scope]);
  const settingsScopes = [...new Set(GOOGLE_SETTINGS_ACCESS.map((r) => r.permission))];
  const gaps = createGapBook();

  const workspace = once(() => readWorkspace(directory(GOOGLE_SCOPE.domains), config));

  const labels = once(async (): Promise<TLabelCatalogue | null> => {
    try {
      return await readLabelCatalogue(client(baseUrls.labels, adminSubject, [GOOGLE_SCOPE.labels]));
    } catch (error) {
      // Labels are an addition to the scan, never a reason to fail it.
      if (!(error instanceof SourceUnavailableError || error instanceof SourceAuthError)) throw error;
      gaps.add(
        GOOGLE_FEATURE.labels,
        GOOGLE_SCOPE.labels,
        `The Drive Labels API could not be read, so files carry no label: ${error.message}`,
      );
      return null;
    }
  });

  /**
   * Who holds Gemini (issue 30): Enterprise License Manager's assignments of the Gemini product,
   * for the customer the users belong to. A refusal is a coverage gap: the users come back
   * without `assistants` (not known). Null: not read.
   */
  async function geminiUsers(customerId: string | undefined): Promise<Set<string> | null> {
    if (!customerId) return null;
    const licensing = client(baseUrls.licensing, adminSubject, [GOOGLE_SCOPE.licensing]);
    const path = `/apps/licensing/v1/product/${GEMINI_PRODUCT_ID}/users`;
    const holders = new Set<string>();
    try {
      for await (const page of pagesByToken<TGLicenseAssignmentList>(licensing, path, {
        customerId,
        maxResults: 1000,
      })) {
        for (const l of page.items ?? []) if (l.userId) holders.add(l.userId.toLowerCase());
      }
    } catch (error) {
      if (!(error instanceof SourceAuthError)) throw error;
      gaps.add(
        GOOGLE_FEATURE.assistants,
        GOOGLE_SCOPE.licensing,
        `Gemini licences were not read, so no user counts as a Gemini user: ${error.message}`,
      );
      return null;
    }
    return holders;
  }

  async function* users(): AsyncGenerator<TSourceUser> {
    const query = { customer: "my_customer", maxResults: 500, projection: "basic", orderBy: "email" };
    const path = "/admin/directory/v1/users";
    let gemini: Set<string> | null | undefined;
    for await (const page of pagesByToken<TGUserList>(directory(GOOGLE_SCOPE.users), path, query)) {
      // The licences once, for the customer of the first page's users.
      if (gemini === undefined) gemini = await geminiUsers(page.users?.find((u) => u.customerId)?.customerId);
      for (const user of page.users ?? []) {
        const mapped = mapUser(user);
        yield gemini === null
          ? mapped
          : { ...mapped, assistants: gemini.has(mapped.email.toLowerCase()) ? ["gemini"] : [] };
      }
    }
  }

  const driveAs = (subject: string) => client(baseUrls.drive, subject, [GOOGLE_SCOPE.drive]);
  const drive = createDriveReader({
    driveAs,
    delegated: tokens.delegated,
    adminSubject,
    users,
    internalDomains: async () => (await workspace()).internalDomains,
    labels,
    gaps,
    concurrency: opts.concurrency ?? DEFAULT_USER_CONCURRENCY,
  });

  // Directory tokens carry no date; the Reports "authorize" event does, for the last 180 days.
  async function grantDates(): Promise<Map<string, string>> {
    const dates = new Map<string, string>();
    const path = "/admin/reports/v1/activity/users/all/applications/token";
    const reports = directory(GOOGLE_SCOPE.reports);
    try {
      for await (const page of pagesByToken<TGActivityList>(reports, path, {
        eventName: "authorize",
        maxResults: 1000,
      })) {
        for (const activity of page.items ?? []) {
          const at = activity.id?.time;
          const email = activity.actor?.email?.toLowerCase();
          for (const event of activity.events ?? []) {
            const clientId = event.parameters?.find((p) => p.name === "client_id")?.value;
            const key = `${email}|${clientId}`;
            if (at && email && clientId && (dates.get(key) ?? "") < at) dates.set(key, at);
          }
        }
      }
    } catch (error) {
      if (!(error instanceof SourceAuthError)) throw error;
      gaps.add(GOOGLE_FEATURE.appGrants, GOOGLE_SCOPE.reports, reportsRefused(error.message));
    }
    return dates;
  }

  /**
   * Clients holding domain-wide delegation, from the admin audit log's Security Settings events
   * (AUTHORIZE_API_CLIENT_ACCESS / REMOVE_API_CLIENT_ACCESS with API_CLIENT_NAME, API_SCOPES):
   * no Admin SDK call lists the delegations themselves, so those authorized before the log's
   * retention are not seen. The latest event per client decides.
   */
  async function delegatedClients(): Promise<TDelegatedClient[]> {
    const path = "/admin/reports/v1/activity/users/all/applications/admin";
    const reports = directory(GOOGLE_SCOPE.reports);
    const events: Array<TDelegatedClient & { removed: boolean }> = [];
    try {
      for (const eventName of ["AUTHORIZE_API_CLIENT_ACCESS", "REMOVE_API_CLIENT_ACCESS"]) {
        for await (const page of pagesByToken<TGActivityList>(reports, path, {
          eventName,
          maxResults: 1000,
        })) {
          for (const activity of page.items ?? []) {
            for (const event of activity.events ?? []) {
              if (event.name !== eventName) continue;
              const value = (name: string) => event.parameters?.find((p) => p.name === name);
              const clientId = value("API_CLIENT_NAME")?.value;
              const scopes = value("API_SCOPES");
              if (!clientId || !activity.id?.time) continue;
              events.push({
                clientId,
                scopes: scopes?.multiValue ?? (scopes?.value ?? "").split(/[\s,]+/).filter(Boolean),
                authorizedAt: activity.id.time,
                actorEmail: (activity.actor?.email ?? "").toLowerCase(),
                removed: eventName === "REMOVE_API_CLIENT_ACCESS",
              });
            }
          }
        }
      }
    } catch (error) {
      if (!(error instanceof SourceAuthError)) throw error;
      gaps.add(GOOGLE_FEATURE.appGrants, GOOGLE_SCOPE.reports, reportsRefused(error.message));
      return [];
    }
    const latest = new Map<string, (typeof events)[number]>();
    for (const e of events.sort((a, b) => a.authorizedAt.localeCompare(b.authorizedAt)))
      latest.set(e.clientId, e);
    return [...latest.values()]
      .filter((e) => !e.removed)
      .map(({ removed: _r, ...client }) => client)
      .sort((a, b) => a.clientId.localeCompare(b.clientId));
  }

  async function* appGrants(): AsyncGenerator<TAppGrant> {
    for (const client of await delegatedClients()) yield mapDelegatedClient(client, opts.agentCatalog);
    const dates = await grantDates();
    const tokenApi = directory(GOOGLE_SCOPE.tokens);
    for await (const user of users()) {
      const path = `/admin/directory/v1/users/${encodeURIComponent(user.id)}/tokens`;
      let list: TGTokenList;
      try {
        list = await tokenApi.get<TGTokenList>(path);
      } catch (error) {
        if (!(error instanceof SourceAuthError)) throw error;
        gaps.add(
          GOOGLE_FEATURE.appGrants,
          GOOGLE_SCOPE.tokens,
          `Third-party app grants were not read: ${error.message}`,
        );
        return;
      }
      for (const token of list.items ?? []) {
        // Without an authorize event in the retention window, the user's creation is the earliest it can be.
        const grantedAt = dates.get(`${user.email}|${token.clientId}`) ?? user.createdAt;
        yield mapToken(token, user, grantedAt, opts.agentCatalog);
      }
    }
  }

  /** Active users, counted once: what a group holding the whole account reaches. */
  const peopleCount = once(async () => {
    let count = 0;
    for await (const page of pagesByToken<TGUserList>(
      directory(GOOGLE_SCOPE.users),
      "/admin/directory/v1/users",
      { customer: "my_customer", maxResults: 500, fields: "nextPageToken,users(suspended)" },
    )) {
      count += (page.users ?? []).filter((u) => u.suspended !== true).length;
    }
    return count;
  });

  return {
    workspace,
    users,
    files: drive.files,
    sharedDrives: drive.sharedDrives,
    groups: () =>
      readGoogleGroups({
        directory: directory(GOOGLE_SCOPE.groups),
        gaps,
        concurrency: opts.concurrency ?? DEFAULT_USER_CONCURRENCY,
        peopleCount,
      }),
    appGrants,

    async *activity(since: Date): AsyncGenerator<TActivityEvent> {
      const { internalDomains } = await workspace();
      const reports = directory(GOOGLE_SCOPE.reports);
      const sources = [
        { app: "drive", eventName: undefined },
        { app: "token", eventName: "authorize" },
        { app: "login", eventName: "login_success" },
      ];
      for (const { app, eventName } of sources) {
        const path = `/admin/reports/v1/activity/users/all/applications/${app}`;
        const query = { startTime: since.toISOString(), eventName, maxResults: 1000 };
        for await (const page of pagesByToken<TGActivityList>(reports, path, query)) {
          for (const activity of page.items ?? []) yield* mapActivity(activity, internalDomains);
        }
      }
    },

    tenantSettings: () => {
      // The settings' calls need different scopes; one token carries every one delegated.
      const settingsTokens = tokens.asGranted(adminSubject, settingsScopes);
      const settingsClient = (baseUrl: string) =>
        createJsonClient({ source: SOURCE, baseUrl, tokens: settingsTokens, http: opts.http });
      return readGoogleSettings({
        admin: settingsClient(baseUrls.admin),
        cloudIdentity: settingsClient(baseUrls.cloudIdentity),
      });
    },
    checkAccess: () =>
      tokens.delegated
        ? checkDelegatedAccess(tokens, adminSubject)
        : checkTokenAccess(opts.credentials, endpoints.tokenInfoUrl ?? GOOGLE_TOKEN_INFO_URL, opts.http),
    coverageGaps: () => gaps.list(),
    // A bare access token sees only its own user's Drive: no per-user feeds to keep, so it is
    // scanned in full every time (docs/sources/google-workspace.md, "The change feed").
    ...(tokens.delegated
      ? {
          changeFeed: createDriveChangeFeed({
            source: SOURCE,
            parts: drive.parts,
            driveAs,
            labels,
            gaps,
            concurrency: opts.concurrency ?? DEFAULT_USER_CONCURRENCY,
          }),
        }
      : {}),
  };
}

export const GOOGLE_TOKEN_INFO_URL = "https://oauth2.googleapis.com/tokeninfo";

/**
 * Domain-wide delegation answers per scope: the token endpoint refuses (`unauthorized_client`) a
 * grant naming a scope the admin did not delegate. So each scope is asked for alone, as the admin.
 */
async function checkDelegatedAccess(tokens: TGoogleTokens, subject: string): Promise<TAccessCheck[]> {
  const answers = new Map<string, Promise<{ granted: boolean; detail?: string }>>();
  const probe = (scope: string) =>
    tokens.probe(subject, [scope]).then(
      () => ({ granted: true }),
      (error: unknown) => {
        if (error instanceof SourceAuthError) return { granted: false, detail: error.message };
        throw error;
      },
    );
  for (const { permission } of GOOGLE_ACCESS)
    if (!answers.has(permission)) answers.set(permission, probe(permission));
  return Promise.all(
    GOOGLE_ACCESS.map(async (r) => ({ ...r, ...((await answers.get(r.permission)) ?? { granted: false }) })),
  );
}

/** A scope is held when granted as such, or through its read-write parent (`drive` covers `drive.readonly`). */
function holds(granted: Set<string>, scope: string): boolean {
  return (
    granted.has(scope) || (scope.endsWith(".readonly") && granted.has(scope.slice(0, -".readonly".length)))
  );
}

/**
 * A bare access token cannot be probed per scope; Google's tokeninfo endpoint says which scopes it
 * carries (it does not say whether its user is an administrator: the first scan does).
 */
async function checkTokenAccess(
  credentials: TGoogleCredentials,
  tokenInfoUrl: string,
  http: THttpOptions | undefined,
): Promise<TAccessCheck[]> {
  const token = "accessToken" in credentials ? credentials.accessToken : "";
  const url = `${tokenInfoUrl}?${new URLSearchParams({ access_token: token }).toString()}`;
  const response = await sendWithRetry(
    SOURCE,
    () => ({ url, init: { headers: { accept: "application/json" } } }),
    http,
  );
  const body = (await response.json().catch(() => null)) as { scope?: unknown } | null;
  if (!response.ok) {
    const detail = `The access token was refused: ${apiErrorMessage(body, response.statusText)}`;
    return GOOGLE_ACCESS.map((r) => ({ ...r, granted: false, detail }));
  }
  const granted = new Set(typeof body?.scope === "string" ? body.scope.split(" ") : []);
  return GOOGLE_ACCESS.map((r) =>
    holds(granted, r.permission)
      ? { ...r, granted: true }
      : { ...r, granted: false, detail: "The access token does not carry this scope" },
  );
}

async function readWorkspace(admin: TJsonClient, config: TGoogleConfig): Promise<TWorkspace> {
  if (config.domain) return workspaceOf(config.domain, config.internalDomains ?? []);
  const list = await admin.get<TGDomainList>("/admin/directory/v1/customer/my_customer/domains");
  const domains = (list.domains ?? []).filter((d) => d.domainName && d.verified !== false);
  const primary = domains.find((d) => d.isPrimary) ?? domains[0];
  if (!primary?.domainName)
    throw new SourceUnavailableError(`${SOURCE}: the Directory lists no verified domain`);
  return workspaceOf(
    primary.domainName,
    domains.map((d) => d.domainName ?? ""),
  );
}
