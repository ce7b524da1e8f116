import type { TAppGrant } from "@posture/connectors";
import { classifyAgent } from "./classify-agent";
import { makeFinding } from "./finding";
import { RULE_IDS } from "./rule-ids";
import { broadScopesOf } from "./scopes";
import type { TDetectedFinding } from "./types";

/** Everything granted to one app (client id) across the tenant's users: one finding per app. */
export type TAppAggregate = {
  clientId: string;
  label: string;
  kind: TAppGrant["kind"];
  publisher: string;
  isKnownPublisher: boolean;
  scopes: Set<string>;
  users: Set<string>;
  grantCount: number;
};

export function addGrant(apps: Map<string, TAppAggregate>, grant: TAppGrant): void {
  let app = apps.get(grant.clientId);
  if (!app) {
    app = {
      clientId: grant.clientId,
      label: grant.label,
      kind: grant.kind,
      publisher: grant.publisher,
      isKnownPublisher: grant.isKnownPublisher,
      scopes: new Set(),
      users: new Set(),
      grantCount: 0,
    };
    apps.set(grant.clientId, app);
  }
  for (const scope of grant.scopes) app.scopes.add(scope);
  app.users.add(grant.userEmail);
  app.grantCount++;
  // The riskier reading wins when grants of one client disagree.
  if (grant.kind === "ai_agent") app.kind = "ai_agent";
  if (!grant.isKnownPublisher) app.isKnownPublisher = false;
}

export function evaluateApp(app: TAppAggregate): TDetectedFinding | null {
  const scopes = [...app.scopes];
  const classification = classifyAgent({ kind: app.kind, isKnownPublisher: app.isKnownPublisher, scopes });
  const broad = classification.quadrant.endsWith("_broad");
  if (broad === false && app.isKnownPublisher) return null;

  const noun =
    app.kind === "ai_agent" ? "AI agent" : app.kind === "service_account" ? "Service account" : "App";
  const common = {
    resourceId: app.clientId,
    resourceName: app.label,
    resourceType: "app" as const,
    details: {
      clientId: app.clientId,
      kind: app.kind,
      publisher: app.publisher,
      isKnownPublisher: app.isKnownPublisher,
      ...classification,
      broadScopes: broadScopesOf(scopes),
      scopes,
      userCount: app.users.size,
      grantCount: app.grantCount,
    },
  };
  if (broad && !app.isKnownPublisher) {
    return makeFinding({
      ruleId: RULE_IDS.appBroadScopesUnverified,
      severity: app.kind === "ai_agent" ? "CRITICAL" : "HIGH",
      title: `${noun} from an unverified publisher has broad access`,
      ...common,
    });
  }
  if (broad) {
    return makeFinding({
      ruleId: RULE_IDS.appBroadScopes,
      severity: "MEDIUM",
      title: `${noun} has broad access`,
      ...common,
    });
  }
  return makeFinding({
    ruleId: RULE_IDS.appUnverifiedPublisher,
    severity: "LOW",
    title: `${noun} from an unverified publisher`,
    ...common,
  });
}
