import {
  AGENT_CATALOG,
  matchAgentCatalog,
  type TAgentCatalogEntry,
  type TAppIdentity,
} from "../agents/catalog";
import { type TAppGrant } from "../types";

// What kind of app a grant is, from facts only (issue 30): a platform's agent registry (Graph's
// agent identities and blueprints, the Copilot admin catalog), the maintained catalog of agent
// publishers (agents/catalog.json, matched by identifiers the platform verifies), or the client's
// type (a service account). A display name never makes an agent: anyone can call an app "ChatGPT".

export type TAppKind = Pick<TAppGrant, "kind" | "agentSource">;

/** Classifies an app grant: registry first, then the catalog, then service accounts, else a plain app. */
export function classifyApp(
  opts: TAppIdentity & {
    label: string;
    isServiceAccount?: boolean;
    /** The platform's own registry lists the app as an agent. */
    registry?: "agent_registry" | "copilot_catalog";
  },
  catalog: readonly TAgentCatalogEntry[] = AGENT_CATALOG,
): TAppKind {
  if (opts.registry) return { kind: "ai_agent", agentSource: opts.registry };
  const entry = matchAgentCatalog(opts, catalog);
  if (entry?.kind === "ai_agent") return { kind: "ai_agent", agentSource: "publisher_catalog" };
  if (entry) return { kind: entry.kind };
  if (
    opts.isServiceAccount ||
    /\.gserviceaccount\.com$/i.test(opts.clientId ?? "") ||
    /\.gserviceaccount\.com$/i.test(opts.label)
  ) {
    return { kind: "service_account" };
  }
  return { kind: "oauth_app" };
}
