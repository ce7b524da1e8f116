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

const ALICE = { id: "m-alice", displayName: "Alice Able" };
const ADMIN = { id: "m-admin", displayName: "Ada Admin" };

// Microsoft Purview sensitivity labels of the tenant (ids are the labels' GUIDs in a real tenant).
const LABEL_GENERAL = "5b1a6d0e-0000-4000-8000-000000000001";
const LABEL_CONFIDENTIAL = "5b1a6d0e-0000-4000-8000-000000000002";
const LABEL_HIGHLY_CONFIDENTIAL = "5b1a6d0e-0000-4000-8000-000000000003";
const LABEL_BOARD_ONLY = "5b1a6d0e-0000-4000-8000-000000000004";

function file(
  id: string,
  name: string,
  size: number,
  lastModifiedDateTime: string,
  mimeType: string,
  creator: { id: string; displayName?: string },
  permissions: NonNullable<TItem["permissions"]>,
  sensitivityLabelIds: string[] = [],
): TItem {
  return {
    id,
    name,
    size,
    lastModifiedDateTime,
    file: { mimeType },
    createdBy: { user: creator },
    permissions,
    ...(sensitivityLabelIds.length > 0 ? { sensitivityLabelIds } : {}),
  };
}

/** A delegated grant to Microsoft Graph, by one user (Principal) or for the whole tenant (AllPrincipals). */
function graphGrant(
  id: string,
  clientId: string,
  principalId: string | null,
  scope: string,
): TGraphFixture["permissionGrants"][number] {
  const consentType = principalId ? "Principal" : "AllPrincipals";
  return { id, clientId, consentType, principalId, resourceId: "sp-graph", scope };
}

function signIn(
  id: string,
  createdDateTime: string,
  userPrincipalName: string,
  appDisplayName: string,
  errorCode = 0,
): TGraphFixture["signIns"][number] {
  return { id, createdDateTime, userPrincipalName, appDisplayName, status: { errorCode } };
}

/**
 * A small Microsoft 365 tenant mirroring the Google fixture: an admin with MFA, a user without,
 * a disabled and a never-signed-in user, a OneDrive with anonymous and specific-people links, a
 * document library with an organization-wide link, and delegated grants to an AI app (verified),
 * an unverified app (tenant-wide consent) and a managed identity, Purview sensitivity labels on
 * three Office files, an Entra ID P1 subscription. `extraUsers` / `extraFiles` force paging.
 */
/** Microsoft 365 Copilot's SKU (skuPartNumber `Microsoft_365_Copilot`) and two of its plans. */
export const COPILOT_SKU_ID = "639dec6b-bb19-468b-871c-c5c441c4b0cb";
const COPILOT_APPS_PLAN = "a62f8878-de10-42f3-b68f-6149a25ceb97";
const COPILOT_CHAT_PLAN = "3f30311c-6b1e-48a4-ab79-725b469da960";

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
      // Microsoft 365 Copilot assigned with every plan enabled (issue 30).
      assignedLicenses: [
        { skuId: "05e9a617-0261-4cee-bb44-138d3ef5d965", disabledPlans: [] },
        { skuId: COPILOT_SKU_ID, disabledPlans: [] },
      ],
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
      // Copilot assigned with both of its Copilot plans disabled: no Copilot.
      assignedLicenses: [{ skuId: COPILOT_SKU_ID, disabledPlans: [COPILOT_APPS_PLAN, COPILOT_CHAT_PLAN] }],
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
    file(
      "a-budget",
      "Budget.xlsx",
      4096,
      "2025-04-10T12:00:00Z",
      "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
      ALICE,
      [
        { id: "perm-owner", roles: ["owner"], grantedToV2: { user: ALICE } },
        { id: "perm-anon", roles: ["read"], link: { scope: "anonymous", type: "view" } },
      ],
      [LABEL_CONFIDENTIAL],
    ),
    file(
      "a-plan",
      "Plan.docx",
      1200,
      "2025-04-11T12:00:00Z",
      "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
      ALICE,
      [
        {
          id: "perm-people",
          roles: ["write"],
          link: { scope: "users", type: "edit" },
          grantedToIdentitiesV2: [
            // An external person who never joined the directory: SharePoint knows them by login only.
            {
              siteUser: {
                id: "14",
                displayName: "Ext Partner",
                loginName: "i:0#.f|membership|urn%3aspo%3aguest#Ext@Partner.example",
              },
            },
            { user: { id: "m-bob", displayName: "Bob Byrne" } },
          ],
        },
      ],
    ),
    { id: "a-gone", name: "Deleted.txt", file: { mimeType: "text/plain" }, deleted: {} },
  ];
  for (let i = 0; i < (opts.extraFiles ?? 0); i++) {
    aliceItems.push(
      file(`a-extra-${i}`, `Extra ${i}.txt`, 10, "2025-03-01T00:00:00Z", "text/plain", { id: "m-alice" }, []),
    );
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
        owner: { user: ALICE },
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
              // A SharePoint identity: a site-collection number as its id, the UPN in its login name.
              grantedToV2: {
                siteUser: {
                  id: "7",
                  displayName: "Ada Admin",
                  loginName: "i:0#.f|membership|admin@contoso.test",
                },
              },
            },
            {
              id: "t-member",
              roles: ["write"],
              grantedToV2: { user: ALICE },
            },
          ]),
          file(
            "t-strategy",
            "Strategy.pptx",
            90000,
            "2025-04-12T12:00:00Z",
            "application/vnd.openxmlformats-officedocument.presentationml.presentation",
            ADMIN,
            [
              {
                id: "perm-org",
                roles: ["read"],
                link: { scope: "organization", type: "view" },
                expirationDateTime: "2027-06-30T00:00:00Z",
              },
            ],
            [LABEL_BOARD_ONLY],
          ),
        ],
      },
      {
        // A library of a site other than the root: GET /drives (the root site's) does not list it.
        id: "drv-projects",
        name: "Project Files",
        driveType: "documentLibrary",
        siteId: "site-projects",
        owner: { group: { id: "grp-projects", displayName: "Projects" } },
        items: [
          root("p-root", [
            {
              id: "p-member",
              roles: ["write"],
              // A B2B guest SharePoint alone names (not in the directory the app reads).
              grantedToV2: {
                siteUser: {
                  id: "12",
                  displayName: "Vendor",
                  loginName: "i:0#.f|membership|pm_vendor.example#ext#@contoso.onmicrosoft.test",
                },
              },
            },
          ]),
          file(
            "p-budget",
            "Project budget.xlsx",
            42000,
            "2025-04-20T12:00:00Z",
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            ADMIN,
            [{ id: "perm-anon", roles: ["read"], link: { scope: "anonymous", type: "view" } }],
          ),
        ],
      },
    ],
    servicePrincipals: [
      {
        id: "sp-chatgpt",
        appId: "app-chatgpt",
        displayName: "ChatGPT Connector",
        appOwnerOrganizationId: "99999999-0000-0000-0000-000000000001",
        servicePrincipalType: "Application",
        verifiedPublisher: { displayName: "OpenAI", verifiedPublisherId: "6012345" },
      },
      {
        id: "sp-graph",
        appId: "00000003-0000-0000-c000-000000000000",
        displayName: "Microsoft Graph",
        appOwnerOrganizationId: MICROSOFT_SERVICES_TENANT,
        servicePrincipalType: "Application",
        verifiedPublisher: { displayName: null, verifiedPublisherId: null },
        // Role ids as Microsoft Graph publishes them.
        appRoles: [
          {
            id: "01d4889c-1287-42c6-ac1f-5d1e02578ef6",
            value: "Files.Read.All",
            allowedMemberTypes: ["Application"],
          },
          {
            id: "810c84a8-4a9e-49e6-bf7d-12d183f40d01",
            value: "Mail.Read",
            allowedMemberTypes: ["Application"],
          },
          {
            id: "df021288-bdef-4463-88db-98f22de89214",
            value: "User.Read.All",
            allowedMemberTypes: ["Application"],
          },
        ],
      },
      {
        id: "sp-archiver",
        appId: "app-archiver",
        displayName: "Mailbox Archiver Daemon",
        // Registered in this tenant.
        appOwnerOrganizationId: GRAPH_TENANT_ID,
        servicePrincipalType: "Application",
        verifiedPublisher: { displayName: null, verifiedPublisherId: null },
      },
      {
        id: "sp-mailmerge",
        appId: "app-mailmerge",
        displayName: "Free Mail Merge",
        appOwnerOrganizationId: "99999999-0000-0000-0000-000000000002",
        servicePrincipalType: "Application",
        verifiedPublisher: { displayName: null, verifiedPublisherId: null },
      },
      {
        id: "sp-mi",
        appId: "app-backup-mi",
        displayName: "backup-identity",
        appOwnerOrganizationId: null,
        servicePrincipalType: "ManagedIdentity",
        verifiedPublisher: null,
      },
    ],
    permissionGrants: [
      graphGrant("g-chatgpt", "sp-chatgpt", "m-alice", " Files.Read.All User.Read offline_access"),
      graphGrant("g-mailmerge", "sp-mailmerge", null, "Mail.Read"),
      graphGrant("g-mi", "sp-mi", "m-admin", "Sites.Read.All"),
      graphGrant("g-graph", "sp-graph", "m-bob", "User.Read"),
    ],
    sites: [
      { id: "site-root", displayName: "Contoso", root: {} },
      { id: "site-projects", displayName: "Projects" },
    ],
    appRoleAssignments: [
      appRole(
        "ar-1",
        "sp-archiver",
        "sp-graph",
        "810c84a8-4a9e-49e6-bf7d-12d183f40d01",
        "2024-03-01T10:00:00Z",
      ),
      appRole(
        "ar-2",
        "sp-archiver",
        "sp-graph",
        "01d4889c-1287-42c6-ac1f-5d1e02578ef6",
        "2024-02-01T10:00:00Z",
      ),
      // A user assigned to an app role is not an application permission.
      {
        id: "ar-user",
        appRoleId: "df021288-bdef-4463-88db-98f22de89214",
        principalId: "m-bob",
        principalType: "User",
        resourceId: "sp-graph",
      },
    ],
    sensitivityLabels: [
      { id: LABEL_GENERAL, name: "General", displayName: "General", priority: 0 },
      { id: LABEL_CONFIDENTIAL, name: "Confidential", displayName: "Confidential", priority: 1 },
      {
        id: LABEL_HIGHLY_CONFIDENTIAL,
        name: "Highly Confidential",
        displayName: "Highly Confidential",
        priority: 2,
        sublabels: [{ id: LABEL_BOARD_ONLY, name: "Board-Only", displayName: "Board Only", priority: 3 }],
      },
    ],
    subscribedSkus: [
      {
        id: `${GRAPH_TENANT_ID}_${COPILOT_SKU_ID}`,
        skuId: COPILOT_SKU_ID,
        skuPartNumber: "Microsoft_365_Copilot",
        capabilityStatus: "Enabled",
        servicePlans: [
          {
            servicePlanId: COPILOT_APPS_PLAN,
            servicePlanName: "M365_COPILOT_APPS",
            provisioningStatus: "Success",
          },
          {
            servicePlanId: COPILOT_CHAT_PLAN,
            servicePlanName: "M365_COPILOT_BUSINESS_CHAT",
            provisioningStatus: "Success",
          },
        ],
      },
      {
        id: `${GRAPH_TENANT_ID}_05e9a617-0261-4cee-bb44-138d3ef5d965`,
        skuId: "05e9a617-0261-4cee-bb44-138d3ef5d965",
        skuPartNumber: "SPE_E3",
        capabilityStatus: "Enabled",
        servicePlans: [
          {
            servicePlanId: "41781fb2-bc02-4b7c-bd55-b576c07bb09d",
            servicePlanName: "AAD_PREMIUM",
            provisioningStatus: "Success",
          },
        ],
      },
    ],
    signIns: [
      signIn("s-alice", "2025-05-01T08:00:00Z", "Alice@contoso.test", "Office 365"),
      // Failed sign-in (invalid password): not a login.
      signIn("s-bob", "2025-05-01T09:00:00Z", "bob@contoso.test", "Office 365", 50126),
      signIn("s-admin", "2025-05-02T08:00:00Z", "admin@contoso.test", "Azure Portal"),
      signIn("s-old", "2024-01-01T08:00:00Z", "admin@contoso.test", "Azure Portal"),
    ],
  };
}

function appRole(
  id: string,
  principalId: string,
  resourceId: string,
  appRoleId: string,
  createdDateTime: string,
) {
  return {
    id,
    appRoleId,
    principalId,
    principalType: "ServicePrincipal" as const,
    resourceId,
    createdDateTime,
  };
}
