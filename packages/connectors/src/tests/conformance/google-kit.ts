import { recordingSleep } from "../../../../fakes/src/adapter-harness";
import { ALL_CONNECTOR_SCOPES, startFakeGoogle } from "../../../../fakes/src/fake-google";
import { buildGoogleFixture, generateServiceAccount } from "../../../../fakes/src/google-fixture";
import { createSourceAdapter, createSourceWriter, type TCreateSourceAdapterInput } from "../../factory";
import { GOOGLE_WRITE_ACCESS } from "../../google/access";
import type { TSourceKit } from "./kit";

// Google Workspace in the conformance suite: the fake Drive, Directory and token endpoint, read by
// a service account with domain-wide delegation (the only credential with Drive's change feeds).
// Throttling is Drive's 429 `rateLimitExceeded` with Retry-After; token expiry is the token
// endpoint's access tokens refused with 401 `authError`.

const PAGE_SIZE = 10;
const FILES = "/drive/v3/files";
// One key pair for the run: generating RSA keys is slow.
let account: ReturnType<typeof generateServiceAccount> | null = null;
const accountOf = () => (account ??= generateServiceAccount("admin@acme.test"));
const WRITE_SCOPES = [...new Set([...ALL_CONNECTOR_SCOPES, ...GOOGLE_WRITE_ACCESS.map((r) => r.permission)])];

export const GOOGLE_KIT: TSourceKit = {
  type: "google_workspace",
  label: "Google Workspace",
  pageSize: PAGE_SIZE,
  skip: {},
  start: async ({ resources }) => {
    const sa = accountOf();
    const fake = await startFakeGoogle({
      fixture: buildGoogleFixture({ extraFiles: resources }),
      serviceAccounts: [{ clientEmail: sa.credentials.clientEmail, publicKey: sa.publicKey }],
      authorizedScopes: WRITE_SCOPES,
      pageSize: PAGE_SIZE,
    });
    const { delays, http } = recordingSleep();
    const input: TCreateSourceAdapterInput = {
      type: "google_workspace",
      mode: "real",
      connectorId: "con_conformance_google",
      credentials: sa.credentials,
      config: { domain: "acme.test" },
      endpoints: { google: fake.endpoints },
      http,
    };
    return {
      adapter: () => createSourceAdapter(input),
      writer: () => createSourceWriter(input),
      seeded: Array.from({ length: resources }, (_, i) => `f-extra-${i}`),
      laterPages: () => fake.requests.filter((r) => r.path === FILES && r.query.has("pageToken")).length,
      throttle: ({ count, retryAfterSec }) =>
        fake.injectFault({ status: 429, count, retryAfter: retryAfterSec, pathPrefix: FILES }),
      requests: () => fake.requests.length,
      waits: () => delays,
      expireTokens: fake.expireTokens,
      tokensIssued: () => fake.grants.map((g) => `${g.subject} ${[...g.scopes].sort().join(" ")}`),
      change: () => {
        fake.tenant.addFile({
          id: "f-conformance-new",
          name: "Added.txt",
          mimeType: "text/plain",
          owners: [{ emailAddress: "alice@acme.test" }],
          modifiedTime: "2025-06-01T00:00:00.000Z",
          size: "10",
          permissions: [
            { id: "p-alice", type: "user", role: "owner", emailAddress: "alice@acme.test" },
            { id: "anyoneWithLink", type: "anyone", role: "reader" },
          ],
        });
        fake.tenant.share("f-extra-1", {
          id: "p-outsider",
          type: "user",
          role: "writer",
          emailAddress: "outsider@partner.example",
        });
        fake.tenant.deleteFile("f-extra-0");
      },
      write: {
        file: { id: "f-external", driveId: null, ownerEmail: "admin@acme.test" },
        permissionId: "p-ext",
        action: "remove_external_user",
      },
      refused: () => [],
      close: fake.close,
    };
  },
};
