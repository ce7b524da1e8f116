import { z } from "zod";
import type { TAppGrant } from "../types";
import data from "./catalog.json" with { type: "json" };

// The maintained catalog of known agent publishers and apps, kept as data (catalog.json) with the
// public source of every entry, validated when the module loads: a malformed entry fails every
// import of the connectors, not a scan in production.

const ZIds = z.array(z.string().min(1)).min(1).optional();

export const ZAgentCatalogEntry = z
  .object({
    id: z.string().regex(/^[a-z0-9-]+$/),
    label: z.string().min(1),
    publisher: z.string().min(1),
    kind: z.enum(["ai_agent", "oauth_app", "service_account"]),
    platforms: z.array(z.enum(["google_workspace", "microsoft_365"])).min(1),
    /** Identifiers the platform verifies; an entry matches when any one of them does. */
    match: z
      .object({
        /** Google OAuth client ids (Directory tokens' `clientId`), exact. */
        clientIds: ZIds,
        /** Entra application ids (`servicePrincipal.appId`), exact, case-insensitive. */
        appIds: ZIds,
        /** Microsoft Partner Network ids (`verifiedPublisher.verifiedPublisherId`), exact. */
        verifiedPublisherIds: ZIds,
        /** Names of Microsoft-verified publishers, whole words: only matched when the publisher is verified. */
        verifiedPublisherNames: ZIds,
        /** The publisher's home tenant (`servicePrincipal.appOwnerOrganizationId`), exact. */
        appOwnerOrganizationIds: ZIds,
      })
      .strict()
      .refine((m) => Object.values(m).some((v) => v && v.length > 0), "an entry needs one identifier"),
    source: z
      .object({
        url: z.url({ protocol: /^https$/ }),
        retrieved: z.iso.date(),
        says: z.string().min(20),
      })
      .strict(),
  })
  .strict();

export type TAgentCatalogEntry = z.infer<typeof ZAgentCatalogEntry>;

export const ZAgentCatalog = z
  .object({ $comment: z.string().optional(), entries: z.array(ZAgentCatalogEntry) })
  .strict()
  .refine((c) => new Set(c.entries.map((e) => e.id)).size === c.entries.length, "entry ids are unique");

/** The catalog as shipped (catalog.json), validated at import. */
export const AGENT_CATALOG: readonly TAgentCatalogEntry[] = ZAgentCatalog.parse(data).entries;

/** What a source says about an app's identity: only identifiers, never its display name. */
export type TAppIdentity = {
  platform: "google_workspace" | "microsoft_365";
  clientId?: string;
  appId?: string;
  verifiedPublisherId?: string;
  verifiedPublisherName?: string;
  appOwnerOrganizationId?: string;
};

const wholeWord = (name: string, text: string) =>
  new RegExp(`(^|[^a-z0-9])${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}([^a-z0-9]|$)`, "i").test(text);

/** The catalog entry an app's identifiers match, or undefined. */
export function matchAgentCatalog(
  app: TAppIdentity,
  catalog: readonly TAgentCatalogEntry[] = AGENT_CATALOG,
): TAgentCatalogEntry | undefined {
  const lower = (s: string | undefined) => (s ?? "").toLowerCase();
  return catalog.find((entry) => {
    if (!entry.platforms.includes(app.platform)) return false;
    const m = entry.match;
    if (app.clientId && m.clientIds?.includes(app.clientId)) return true;
    if (app.appId && m.appIds?.some((id) => lower(id) === lower(app.appId))) return true;
    if (app.verifiedPublisherId && m.verifiedPublisherIds?.includes(app.verifiedPublisherId)) return true;
    if (
      app.appOwnerOrganizationId &&
      m.appOwnerOrganizationIds?.some((id) => lower(id) === lower(app.appOwnerOrganizationId))
    )
      return true;
    // A publisher's name counts only once Microsoft has verified the publisher (it has an MPN id).
    const verifiedName = app.verifiedPublisherId ? app.verifiedPublisherName : undefined;
    return Boolean(verifiedName && m.verifiedPublisherNames?.some((n) => wholeWord(n, verifiedName)));
  });
}

export type TAgentClassification = Pick<TAppGrant, "kind"> & Pick<TAppGrant, "agentSource">;
