import type { TJsonClient } from "../../http/client";
import { SourceHttpError } from "../../http/errors";
import { graphItems } from "../../http/paginate";
import { SourceAuthError, type TTenantSetting } from "../../types";
import {
  type TMsAdminConsentRequestPolicy,
  type TMsAuthenticationMethodsPolicy,
  type TMsAuthorizationPolicy,
  type TMsConditionalAccessPolicy,
  type TMsDirectoryObject,
  type TMsDomain,
  type TMsSecurityDefaultsPolicy,
  type TMsSharepointSettings,
} from "./api";
import { DRAFTS, NEEDS, PATHS, source, type TGroup, type TValues } from "./catalog";
import { conditionalAccessValues } from "./conditional-access";
import { fromAuthMethods, fromAuthorization, fromDomains } from "./entra";
import { fromSharepoint } from "./sharepoint";

async function collect<T>(graph: TJsonClient, path: string, query = {}): Promise<T[]> {
  const items: T[] = [];
  for await (const item of graphItems<T>(graph, path, query)) items.push(item);
  return items;
}

const READERS: Record<TGroup, (graph: TJsonClient) => Promise<TValues>> = {
  securityDefaults: async (graph) => {
    const p = await graph.get<TMsSecurityDefaultsPolicy>(PATHS.securityDefaults);
    return { "security_defaults.enabled": p.isEnabled ?? false };
  },
  authorization: async (graph) =>
    fromAuthorization(await graph.get<TMsAuthorizationPolicy>(PATHS.authorization)),
  conditionalAccess: async (graph) =>
    conditionalAccessValues(await collect<TMsConditionalAccessPolicy>(graph, PATHS.conditionalAccess)),
  authMethods: async (graph) =>
    fromAuthMethods(await graph.get<TMsAuthenticationMethodsPolicy>(PATHS.authMethods)),
  sharepoint: async (graph) => fromSharepoint(await graph.get<TMsSharepointSettings>(PATHS.sharepoint)),
  globalAdmins: async (graph) => {
    const members = await collect<TMsDirectoryObject>(graph, PATHS.globalAdmins);
    return {
      "roles.global_admin_count": members.filter((m) => m["@odata.type"] === "#microsoft.graph.user").length,
    };
  },
  domains: async (graph) =>
    fromDomains(
      await collect<TMsDomain>(graph, PATHS.domains, {
        $select: "id,authenticationType,isVerified,passwordValidityPeriodInDays",
      }),
    ),
  adminConsent: async (graph) => {
    const p = await graph.get<TMsAdminConsentRequestPolicy>(PATHS.adminConsent);
    return { "admin_consent_request.enabled": p.isEnabled ?? false };
  },
};

const LICENCE_MESSAGE = /licen[cs]e|premium/i;

/**
 * Why a group could not be read, or null when the failure is not about access. A 403 is a
 * missing permission, or a missing licence when Graph's message says so; a 400/404 (the resource
 * does not exist for this tenant, e.g. no SharePoint) is reported the same way. A 401 (the
 * credentials themselves refused, after the client's fresh-token retry) and 429/5xx after the
 * client's retries are not one setting's problem: they throw, like every other read of the adapter.
 */
function unavailableReason(group: TGroup, error: unknown): string | null {
  const needs = NEEDS[group];
  if (error instanceof SourceAuthError && /\(HTTP 403\)$/.test(error.message)) {
    if (needs.licence && LICENCE_MESSAGE.test(error.message)) return `${needs.licence} licence`;
    return `${needs.permission} application permission${needs.licence ? ` (and a ${needs.licence} licence)` : ""}`;
  }
  if (error instanceof SourceHttpError && (error.status === 400 || error.status === 404)) {
    return `${PATHS[group]} not readable in this tenant (HTTP ${error.status})`;
  }
  return null;
}

/** Every setting of MICROSOFT_SETTINGS, read or marked unavailable (never throws for one setting). */
export async function readMicrosoftSettings(graph: TJsonClient): Promise<TTenantSetting[]> {
  const groups = Object.keys(PATHS) as TGroup[];
  const results = await Promise.all(
    groups.map(async (group) => {
      try {
        return { group, values: await READERS[group](graph) };
      } catch (error) {
        const reason = unavailableReason(group, error);
        if (reason === null) throw error;
        return { group, unavailable: reason };
      }
    }),
  );
  const byGroup = new Map(results.map((r) => [r.group, r]));
  return DRAFTS.map((spec): TTenantSetting => {
    const result = byGroup.get(spec.group);
    if (!result || "unavailable" in result)
      return { key: spec.key, unavailable: result?.unavailable ?? "not read" };
    const value = result.values[spec.key];
    return value === undefined
      ? { key: spec.key, unavailable: `${PATHS[spec.group]} did not report it` }
      : { key: spec.key, value, source: source(spec.group) };
  });
}
