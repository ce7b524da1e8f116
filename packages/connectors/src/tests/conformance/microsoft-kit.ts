import { recordingSleep } from "../../../../fakes/src/adapter-harness";
import { ALL_GRAPH_WRITE_ROLES, startFakeGraph } from "../../../../fakes/src/fake-graph";
import { buildGraphFixture, GRAPH_TENANT_ID } from "../../../../fakes/src/graph-fixture";
import { createSourceAdapter, createSourceWriter, type TCreateSourceAdapterInput } from "../../factory";
import type { TSourceKit } from "./kit";

// Microsoft 365 in the conformance suite: the fake Graph (drives read by delta, whose pages end in
// `@odata.nextLink`) and the identity platform's client credentials grant. Throttling is Graph's
// 429 `TooManyRequests` with Retry-After; token expiry its 401 `InvalidAuthenticationToken`
// ("Lifetime validation failed"). The write removes a guest's direct grant: restored by
// invitation (a sharing link could only come back as a new link, reversibility.ts).

const PAGE_SIZE = 10;
const CLIENT_ID = "aaaaaaaa-0000-0000-0000-000000000001";
const SECRET = "s3cret~value";
const ALICE_DELTA = "/v1.0/drives/drv-alice/root/delta";

/** Whether a delta request asks for a page after a first enumeration's first (its token says where). */
function isLaterPage(token: string | null): boolean {
  if (!token) return false;
  try {
    const decoded = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as { a?: unknown };
    return decoded.a !== undefined;
  } catch {
    return false;
  }
}

/** An issued token's grant: the audience and roles its JWT payload carries (not its value). */
function grantOf(token: string): string {
  const payload = token.split(".")[1] ?? "";
  const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as {
    aud?: unknown;
    roles?: unknown;
  };
  const roles = Array.isArray(claims.roles) ? claims.roles.map(String).sort() : [];
  return `${String(claims.aud)} ${roles.join(" ")}`;
}

export const MICROSOFT_KIT: TSourceKit = {
  type: "microsoft_365",
  label: "Microsoft 365",
  pageSize: PAGE_SIZE,
  skip: {},
  start: async ({ resources }) => {
    const fixture = {
      ...buildGraphFixture({ extraFiles: resources }),
      grantedRoles: [...ALL_GRAPH_WRITE_ROLES],
    };
    // A guest with a direct grant on a team file: what remediation removes and undo invites back.
    fixture.drives
      .find((d) => d.id === "drv-team")
      ?.items.find((i) => i.id === "t-strategy")
      ?.permissions?.push({
        id: "perm-guest",
        roles: ["write"],
        grantedToV2: {
          siteUser: {
            displayName: "Guest",
            loginName: "i:0#.f|membership|urn%3aspo%3aguest#guest@partner.example",
          },
        },
        invitation: { email: "guest@partner.example" },
      });
    const fake = await startFakeGraph({
      fixture,
      clientId: CLIENT_ID,
      clientSecret: SECRET,
      pageSize: PAGE_SIZE,
    });
    const { delays, http } = recordingSleep();
    const input: TCreateSourceAdapterInput = {
      type: "microsoft_365",
      mode: "real",
      connectorId: "con_conformance_microsoft",
      credentials: { tenantId: GRAPH_TENANT_ID, clientId: CLIENT_ID, clientSecret: SECRET },
      config: {},
      endpoints: { microsoft: { graphBaseUrl: fake.url, loginBaseUrl: fake.url, manageBaseUrl: fake.url } },
      http,
    };
    const alice = { id: "m-alice", displayName: "Alice Able" };
    return {
      adapter: () => createSourceAdapter(input),
      writer: () => createSourceWriter(input),
      seeded: Array.from({ length: resources }, (_, i) => `a-extra-${i}`),
      laterPages: () =>
        fake.requests.filter((r) => r.path.endsWith("/root/delta") && isLaterPage(r.query.get("token")))
          .length,
      throttle: ({ count, retryAfterSec }) =>
        fake.injectFault({ status: 429, count, retryAfter: retryAfterSec, pathPrefix: ALICE_DELTA }),
      requests: () => fake.requests.length,
      waits: () => delays,
      expireTokens: fake.expireTokens,
      tokensIssued: () => fake.issuedTokens.map(grantOf),
      change: () => {
        fake.tenant.putItem("drv-alice", {
          id: "a-conformance-new",
          name: "Added.txt",
          size: 10,
          lastModifiedDateTime: "2025-06-01T00:00:00Z",
          file: { mimeType: "text/plain" },
          createdBy: { user: alice },
          permissions: [{ id: "a-new-anon", roles: ["read"], link: { scope: "anonymous", type: "view" } }],
        });
        fake.tenant.setPermissions("drv-alice", "a-extra-1", [
          { id: "x1-anon", roles: ["read"], link: { scope: "anonymous", type: "view" } },
        ]);
        fake.tenant.deleteItem("drv-alice", "a-extra-0");
      },
      write: {
        file: { id: "t-strategy", driveId: "drv-team", ownerEmail: "admin@contoso.test" },
        permissionId: "perm-guest",
        action: "remove_external_user",
      },
      refused: () => [],
      close: fake.close,
    };
  },
};
