import { type TGraphFixture } from "./fake-graph";

export const GRAPH_TENANT_ID = "11111111-2222-3333-4444-555555555555";
const MICROSOFT_SERVICES_TENANT = "f8cdef31-a31e-4b4a-93e4-5f571e91255a";

type TItem = TGraphFixture["drives"][number]["items"][number];

const root = (id: string, permissions: TItem["permissions"] = []): TItem => ({
  id,
  name: "root",
  root: {},
  folder: { childCount: 1 },
  permissions,
});

/**
 * A small Microsoft 365 tenant mirroring the Google fixture: an admin with MFA, a user without,
 * a disabled and a never-signed-in user, a OneDrive with anonymous and specific-people links, a
 * document library with an organization-wide link, and delegated grants to an AI app (verified),
 * an unverified app (tenant-wide consent) and a managed identity. `extraUsers` / `extraFiles` force paging.
 */
export function buildGraphFixture(opts: { extraUsers?: number; extraFiles?: number } = {}): TGraphFixture {
  const users: TGraphFixture["users"] = [
    {
      id: "m-admin",
      displayName: "Ada Admin",
      mail: "admin@contoso.test",
      userPrincipalName: "admin@contoso.test",
      accountEnabled: true,
      createdDateTime: "2019-02-01T00:00:00Z",
      signInActivity: { lastSignInDateTime: "2025-05-01T09:00:00Z" },
    },
    {
      id: "m-alice",
      displayName: "Alice Able",
      mail: "Alice@Contoso.test",
      userPrincipalName: "alice@contoso.test",
      accountEnabled: true,
      createdDateTime: "2020-02-01T00:00:00Z",
      signInActivity: {
        lastSignInDateTime: "2025-05-02T10:00:00Z",
        lastSuccessfulSignInDateTime: "2025-05-02T09:00:00Z",
      },
    },
    {
      id: "m-bob",
      displayName: "Bob Byrne",
      mail: "bob@contoso.test",
      userPrincipalName: "bob@contoso.test",
      accountEnabled: false,
      createdDateTime: "2020-03-01T00:00:00Z",
      signInActivity: { lastSignInDateTime: "2024-01-15T08:00:00Z" },
    },
    {
      id: "m-dave",
      displayName: "Dave Dormant",
      mail: null,
      userPrincipalName: "dave@contoso.test",
      accountEnabled: true,
      createdDateTime: "2021-04-01T00:00:00Z",
    },
  ];
  for (let i = 0; i < (opts.extraUsers ?? 0); i++) {
    users.push({
      id: `m-extra-${i}`,
      displayName: `Extra ${i}`,
      mail: `extra${i}@contoso.test`,
      userPrincipalName: `extra${i}@contoso.test`,
      accountEnabled: true,
      createdDateTime: "2022-01-01T00:00:00Z",
      signInActivity: { lastSignInDateTime: "2025-05-03T00:00:00Z" },
    });
  }

  const aliceItems: TItem[] = [
    root("a-root"),
    { id: "a-docs", name: "Docs", folder: { childCount: 2 } },
    {
      id: "a-budget",
      name: "Budget.xlsx",
      size: 4096,
      lastModifiedDateTime: "2025-04-10T12:00:00Z",
      file: { mimeType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" },
      createdBy: { user: { id: "m-alice", displayName: "Alice Able" } },
      permissions: [
        {
          id: "perm-owner",
          roles: ["owner"],
          grantedToV2: { user: { id: "m-alice", displayName: "Alice Able" } },
        },
        { id: "perm-anon", roles: ["read"], link: { scope: "anonymous", type: "view" } },
      ],
    },
    {
      id: "a-plan",
      name: "Plan.docx",
      size: 1200,
      lastModifiedDateTime: "2025-04-11T12:00:00Z",
      file: { mimeType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document" },
      createdBy: { user: { id: "m-alice", displayName: "Alice Able" } },
      permissions: [
        {
          id: "perm-people",
          roles: ["write"],
          link: { scope: "users", type: "edit" },
          grantedToIdentitiesV2: [
            { user: { displayName: "Ext Partner", email: "Ext@Partner.example" } },
            { user: { id: "m-bob", displayName: "Bob Byrne" } },
          ],
        },
      ],
    },
    { id: "a-gone", name: "Deleted.txt", file: { mimeType: "text/plain" }, deleted: {} },
  ];
  for (let i = 0; i < (opts.extraFiles ?? 0); i++) {
    aliceItems.push({
      id: `a-extra-${i}`,
      name: `Extra ${i}.txt`,
      size: 10,
      lastModifiedDateTime: "2025-03-01T00:00:00Z",
      file: { mimeType: "text/plain" },
      createdBy: { user: { id: "m-alice" } },
      permissions: [],
    });
  }

  return {
    tenantId: GRAPH_TENANT_ID,
    organization: {
      id: GRAPH_TENANT_ID,
      createdDateTime: "2019-01-01T00:00:00Z",
      verifiedDomains: [
        { name: "contoso.test", isDefault: true, isInitial: false },
        { name: "contoso.onmicrosoft.test", isDefault: false, isInitial: true },
      ],
    },
    users,
    registrationDetails: [
      { id: "m-admin", userPrincipalName: "admin@contoso.test", isAdmin: true, isMfaRegistered: true },
      { id: "m-alice", userPrincipalName: "alice@contoso.test", isAdmin: false, isMfaRegistered: false },
      { id: "m-bob", userPrincipalName: "bob@contoso.test", isAdmin: false, isMfaRegistered: true },
      { id: "m-dave", userPrincipalName: "dave@contoso.test", isAdmin: false, isMfaRegistered: false },
    ],
    drives: [
      {
        id: "drv-alice",
        name: "OneDrive",
        driveType: "business",
        owner: { user: { id: "m-alice", displayName: "Alice Able" } },
        items: aliceItems,
      },
      {
        id: "drv-team",
        name: "Team Documents",
        driveType: "documentLibrary",
        owner: { group: { id: "grp-team", displayName: "Team" } },
        items: [
          root("t-root", [
            {
              id: "t-owner",
              roles: ["owner"],
              grantedToV2: { siteUser: { email: "admin@contoso.test", displayName: "Ada Admin" } },
            },
            {
              id: "t-member",
              roles: ["write"],
              grantedToV2: { user: { id: "m-alice", displayName: "Alice Able" } },
            },
          ]),
          {
            id: "t-strategy",
            name: "Strategy.pptx",
            size: 90000,
            lastModifiedDateTime: "2025-04-12T12:00:00Z",
            file: { mimeType: "application/vnd.openxmlformats-officedocument.presentationml.presentation" },
            createdBy: { user: { id: "m-admin", displayName: "Ada Admin" } },
            permissions: [{ id: "perm-org", roles: ["read"], link: { scope: "organization", type: "view" } }],
          },
        ],
      },
    ],
    servicePrincipals: [
      {
        id: "sp-chatgpt",
        appId: "app-chatgpt",
        displayName: "ChatGPT Connector",
        publisherName: "OpenAI Tenant",
        appOwnerOrganizationId: "99999999-0000-0000-0000-000000000001",
        servicePrincipalType: "Application",
        verifiedPublisher: { displayName: "OpenAI", verifiedPublisherId: "6012345" },
      },
      {
        id: "sp-graph",
        appId: "00000003-0000-0000-c000-000000000000",
        displayName: "Microsoft Graph",
        publisherName: "Microsoft Services",
        appOwnerOrganizationId: MICROSOFT_SERVICES_TENANT,
        servicePrincipalType: "Application",
        verifiedPublisher: { displayName: null, verifiedPublisherId: null },
      },
      {
        id: "sp-mailmerge",
        appId: "app-mailmerge",
        displayName: "Free Mail Merge",
        publisherName: "Some Dev Tenant",
        appOwnerOrganizationId: "99999999-0000-0000-0000-000000000002",
        servicePrincipalType: "Application",
        verifiedPublisher: { displayName: null, verifiedPublisherId: null },
      },
      {
        id: "sp-mi",
        appId: "app-backup-mi",
        displayName: "backup-identity",
        publisherName: null,
        appOwnerOrganizationId: null,
        servicePrincipalType: "ManagedIdentity",
        verifiedPublisher: null,
      },
    ],
    permissionGrants: [
      {
        id: "g-chatgpt",
        clientId: "sp-chatgpt",
        consentType: "Principal",
        principalId: "m-alice",
        resourceId: "sp-graph",
        scope: " Files.Read.All User.Read offline_access",
      },
      {
        id: "g-mailmerge",
        clientId: "sp-mailmerge",
        consentType: "AllPrincipals",
        principalId: null,
        resourceId: "sp-graph",
        scope: "Mail.Read",
      },
      {
        id: "g-mi",
        clientId: "sp-mi",
        consentType: "Principal",
        principalId: "m-admin",
        resourceId: "sp-graph",
        scope: "Sites.Read.All",
      },
      {
        id: "g-graph",
        clientId: "sp-graph",
        consentType: "Principal",
        principalId: "m-bob",
        resourceId: "sp-graph",
        scope: "User.Read",
      },
    ],
    signIns: [
      {
        id: "s-alice",
        createdDateTime: "2025-05-01T08:00:00Z",
        userPrincipalName: "Alice@contoso.test",
        appDisplayName: "Office 365",
        status: { errorCode: 0 },
      },
      {
        id: "s-bob",
        createdDateTime: "2025-05-01T09:00:00Z",
        userPrincipalName: "bob@contoso.test",
        appDisplayName: "Office 365",
        status: { errorCode: 50126 },
      },
      {
        id: "s-admin",
        createdDateTime: "2025-05-02T08:00:00Z",
        userPrincipalName: "admin@contoso.test",
        appDisplayName: "Azure Portal",
        status: { errorCode: 0 },
      },
      {
        id: "s-old",
        createdDateTime: "2024-01-01T08:00:00Z",
        userPrincipalName: "admin@contoso.test",
        appDisplayName: "Azure Portal",
        status: { errorCode: 0 },
      },
    ],
  };
}
