import { generateKeyPairSync } from "node:crypto";
import { type TGoogleServiceAccount } from "@posture/connectors/wire";
import { type TGoogleFixture } from "./fake-google";

/** A fresh RSA key pair: the private half for the adapter's credentials, the public half for the fake. */
export function generateServiceAccount(
  subject: string,
  clientEmail = "scanner@posture-test.iam.gserviceaccount.com",
) {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const credentials: TGoogleServiceAccount = {
    clientEmail,
    subject,
    privateKey: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  };
  return { credentials, publicKey: publicKey.export({ type: "spki", format: "pem" }).toString() };
}

/**
 * A small Workspace tenant with one of everything a scan must notice: an admin without gaps, a user
 * without 2SV, a suspended and a never-signed-in user (whose Drive is turned off), public / external /
 * internal files, a file only its owner can see, shared drives with and without restrictions (one
 * the admin is not a member of, one whose only member is suspended), Drive labels (a badged
 * classification and a plain one), an AI agent, a service account and an unverified app.
 * `extraUsers` / `extraFiles` pad the listings so paging can be exercised.
 */
export function buildGoogleFixture(opts: { extraUsers?: number; extraFiles?: number } = {}): TGoogleFixture {
  const users: TGoogleFixture["users"] = [
    {
      id: "u-admin",
      primaryEmail: "admin@acme.test",
      name: { fullName: "Ada Admin" },
      isAdmin: true,
      isEnrolledIn2Sv: true,
      suspended: false,
      lastLoginTime: "2025-05-01T09:00:00.000Z",
      creationTime: "2020-01-01T00:00:00.000Z",
      customerId: "C0abc",
    },
    {
      id: "u-alice",
      primaryEmail: "alice@acme.test",
      name: { givenName: "Alice", familyName: "Able" },
      isAdmin: false,
      isEnrolledIn2Sv: false,
      suspended: false,
      lastLoginTime: "2025-05-02T10:00:00.000Z",
      creationTime: "2021-02-01T00:00:00.000Z",
      customerId: "C0abc",
    },
    {
      id: "u-bob",
      primaryEmail: "bob@acme.test",
      name: { fullName: "Bob Byrne" },
      isAdmin: false,
      isEnrolledIn2Sv: true,
      suspended: true,
      lastLoginTime: "2024-01-15T08:00:00.000Z",
      creationTime: "2021-03-01T00:00:00.000Z",
      customerId: "C0abc",
    },
    {
      id: "u-dave",
      primaryEmail: "dave@acme.test",
      name: { fullName: "Dave Dormant" },
      isAdmin: false,
      isEnrolledIn2Sv: false,
      suspended: false,
      lastLoginTime: "1970-01-01T00:00:00.000Z",
      creationTime: "2022-04-01T00:00:00.000Z",
      customerId: "C0abc",
    },
  ];
  for (let i = 0; i < (opts.extraUsers ?? 0); i++) {
    users.push({
      id: `u-extra-${i}`,
      primaryEmail: `extra${String(i).padStart(3, "0")}@acme.test`,
      name: { fullName: `Extra ${i}` },
      isAdmin: false,
      isEnrolledIn2Sv: true,
      suspended: false,
      lastLoginTime: "2025-05-03T00:00:00.000Z",
      creationTime: "2023-01-01T00:00:00.000Z",
      customerId: "C0abc",
    });
  }

  const owner = (email: string, id: string) => ({
    id,
    type: "user" as const,
    role: "owner" as const,
    emailAddress: email,
  });
  const files: TGoogleFixture["files"] = [
    {
      id: "f-public",
      name: "Budget 2025.xlsx",
      mimeType: "application/vnd.google-apps.spreadsheet",
      owners: [{ emailAddress: "alice@acme.test" }],
      modifiedTime: "2025-04-10T12:00:00.000Z",
      size: "2048",
      permissions: [
        owner("alice@acme.test", "p-alice"),
        { id: "anyoneWithLink", type: "anyone", role: "reader" },
      ],
    },
    {
      id: "f-external",
      name: "Roadmap.pdf",
      mimeType: "application/pdf",
      owners: [{ emailAddress: "admin@acme.test" }],
      modifiedTime: "2025-04-11T12:00:00.000Z",
      size: "52000",
      permissions: [
        owner("admin@acme.test", "p-admin"),
        { id: "p-ext", type: "user", role: "writer", emailAddress: "Ext@Partner.example" },
        { id: "p-partner", type: "domain", role: "reader", domain: "partner.example" },
      ],
      labelInfo: { labels: [classified("ch-internal")] },
    },
    {
      id: "f-internal",
      name: "Team notes",
      mimeType: "application/vnd.google-apps.document",
      owners: [{ emailAddress: "alice@acme.test" }],
      modifiedTime: "2025-04-12T12:00:00.000Z",
      permissions: [
        owner("alice@acme.test", "p-alice"),
        {
          id: "p-acme",
          type: "domain",
          role: "commenter",
          domain: "acme.test",
          allowFileDiscovery: true,
          expirationTime: "2027-06-30T00:00:00.000Z",
        },
      ],
    },
    {
      // Shared with Alice by name: in her "shared with me", yet read once, from its owner.
      id: "f-shared",
      name: "Board deck.pptx",
      mimeType: "application/vnd.google-apps.presentation",
      owners: [{ emailAddress: "admin@acme.test" }],
      modifiedTime: "2025-04-16T12:00:00.000Z",
      size: "9000",
      permissions: [
        owner("admin@acme.test", "p-admin"),
        { id: "p-alice", type: "user", role: "writer", emailAddress: "alice@acme.test" },
      ],
    },
    {
      // Shared with no one: only its owner (and a scan impersonating her) can see it.
      id: "f-private",
      name: "Salary review.xlsx",
      mimeType: "application/vnd.google-apps.spreadsheet",
      owners: [{ emailAddress: "alice@acme.test" }],
      modifiedTime: "2025-04-14T12:00:00.000Z",
      size: "4096",
      permissions: [owner("alice@acme.test", "p-alice")],
      labelInfo: { labels: [classified("ch-confidential")] },
    },
    {
      id: "f-legal",
      name: "Settlement terms.pdf",
      mimeType: "application/pdf",
      driveId: "d-legal",
      modifiedTime: "2025-04-15T12:00:00.000Z",
      size: "80000",
      permissions: [
        { id: "p-legal-alice", type: "user", role: "organizer", emailAddress: "alice@acme.test" },
        { id: "anyoneWithLink", type: "anyone", role: "reader" },
      ],
      labelInfo: { labels: [{ id: LEGAL_HOLD, revisionId: "1", fields: {} }] },
    },
    {
      id: "f-drive",
      name: "Launch plan",
      mimeType: "application/vnd.google-apps.document",
      driveId: "d-eng",
      modifiedTime: "2025-04-13T12:00:00.000Z",
      size: "1000",
      permissions: [
        { id: "p-eng-org", type: "user", role: "organizer", emailAddress: "admin@acme.test" },
        { id: "p-eve", type: "user", role: "commenter", emailAddress: "eve@gmail.example" },
        { id: "p-gone", type: "user", role: "reader", emailAddress: "left@acme.test", deleted: true },
      ],
    },
    {
      id: "f-trashed",
      name: "Old draft",
      mimeType: "text/plain",
      owners: [{ emailAddress: "alice@acme.test" }],
      modifiedTime: "2024-01-01T00:00:00.000Z",
      trashed: true,
      permissions: [
        owner("alice@acme.test", "p-alice"),
        { id: "anyoneWithLink", type: "anyone", role: "writer" },
      ],
    },
  ];
  for (let i = 0; i < (opts.extraFiles ?? 0); i++) {
    files.push({
      id: `f-extra-${i}`,
      name: `Extra ${i}.txt`,
      mimeType: "text/plain",
      owners: [{ emailAddress: "alice@acme.test" }],
      modifiedTime: "2025-03-01T00:00:00.000Z",
      size: "10",
      permissions: [owner("alice@acme.test", "p-alice")],
    });
  }

  return {
    // Gemini (product 101047): alice on Gemini Business, bob (suspended) on Gemini Enterprise;
    // another product's licence names dave.
    customerId: "C0abc",
    licenseAssignments: [
      { productId: "101047", skuId: "1010470003", skuName: "Gemini Business", userId: "Alice@acme.test" },
      { productId: "101047", skuId: "1010470001", skuName: "Gemini Enterprise", userId: "bob@acme.test" },
      {
        productId: "Google-Apps",
        skuId: "1010020020",
        skuName: "Google Workspace Enterprise Plus",
        userId: "dave@acme.test",
      },
    ],
    domains: [
      { domainName: "acme.test", isPrimary: true, verified: true },
      { domainName: "acme-labs.test", isPrimary: false, verified: true },
    ],
    users,
    files,
    drives: [
      {
        id: "d-eng",
        name: "Engineering",
        restrictions: { domainUsersOnly: false, driveMembersOnly: false, copyRequiresWriterPermission: true },
        permissions: [
          { id: "p-eng-org", type: "user", role: "organizer", emailAddress: "admin@acme.test" },
          { id: "p-eng-alice", type: "user", role: "writer", emailAddress: "alice@acme.test" },
          { id: "p-eng-group", type: "group", role: "reader", emailAddress: "eng@acme.test" },
        ],
      },
      {
        // Its only member is suspended: no one can be impersonated to read its files.
        id: "d-fin",
        name: "Finance",
        restrictions: { domainUsersOnly: true, driveMembersOnly: true, copyRequiresWriterPermission: false },
        permissions: [
          { id: "p-fin-bob", type: "user", role: "fileOrganizer", emailAddress: "bob@acme.test" },
        ],
      },
      {
        // The admin is not a member: only Alice (and the outside counsel) can list its files.
        id: "d-legal",
        name: "Legal",
        restrictions: { domainUsersOnly: false, driveMembersOnly: true, copyRequiresWriterPermission: true },
        permissions: [
          { id: "p-legal-counsel", type: "user", role: "organizer", emailAddress: "counsel@lawfirm.example" },
          { id: "p-legal-alice", type: "user", role: "organizer", emailAddress: "alice@acme.test" },
        ],
      },
    ],
    labels: DRIVE_LABELS,
    driveDisabled: ["dave@acme.test"],
    tokens: {
      "u-alice": [
        webToken("1234-chatgpt.apps.googleusercontent.com", "ChatGPT", [
          "https://www.googleapis.com/auth/drive.readonly",
          "openid",
          "email",
        ]),
      ],
      "u-admin": [
        webToken("backup@acme-backup.iam.gserviceaccount.com", "Backup Robot", [
          "https://www.googleapis.com/auth/drive",
        ]),
      ],
      "u-bob": [
        webToken(
          "999-anon.apps.googleusercontent.com",
          "Cool PDF Tool",
          ["https://www.googleapis.com/auth/gmail.readonly"],
          { anonymous: true },
        ),
      ],
    },
    activities: {
      drive: [
        activity("drive", "a1", "2025-04-20T10:00:00.000Z", "admin@acme.test", [
          event("change_user_access", { doc_id: "f-external", target_user: "Ext@Partner.example" }),
          event("change_user_access", { doc_id: "f-external", target_user: "bob@acme-labs.test" }),
        ]),
        activity("drive", "a2", "2025-04-21T10:00:00.000Z", "alice@acme.test", [
          event("download", { doc_id: "f-public" }),
        ]),
        activity("drive", "a3", "2025-04-22T10:00:00.000Z", "bob@acme.test", [
          event("view", { doc_id: "f-internal" }),
        ]),
        activity("drive", "a4", "2025-04-23T10:00:00.000Z", "alice@acme.test", [
          event("change_document_visibility", { doc_id: "f-public", visibility: "people_with_link" }),
        ]),
        activity("drive", "a0", "2024-06-01T10:00:00.000Z", "alice@acme.test", [
          event("download", { doc_id: "f-public" }),
        ]),
      ],
      token: [
        activity("token", "t1", "2025-04-01T08:00:00.000Z", "alice@acme.test", [
          {
            name: "authorize",
            parameters: [
              { name: "client_id", value: "1234-chatgpt.apps.googleusercontent.com" },
              { name: "app_name", value: "ChatGPT" },
              { name: "scope", multiValue: ["https://www.googleapis.com/auth/drive.readonly"] },
            ],
          },
        ]),
      ],
      login: [
        activity("login", "l1", "2025-05-02T10:00:00.000Z", "alice@acme.test", [{ name: "login_success" }]),
        activity("login", "l2", "2025-05-02T11:00:00.000Z", "bob@acme.test", [{ name: "login_failure" }]),
      ],
    },
  };
}

const CLASSIFICATION = "lblClassification01";
const LEGAL_HOLD = "lblLegalHold02";

/** The tenant's Drive labels as the Labels API lists them with LABEL_VIEW_FULL. */
const DRIVE_LABELS: NonNullable<TGoogleFixture["labels"]> = [
  {
    name: `labels/${CLASSIFICATION}@3`,
    id: CLASSIFICATION,
    revisionId: "3",
    labelType: "ADMIN",
    properties: { title: "Data classification" },
    lifecycle: { state: "PUBLISHED" },
    fields: [
      {
        id: "fldLevel",
        queryKey: `labels/${CLASSIFICATION}.fldLevel`,
        properties: { displayName: "Level" },
        selectionOptions: {
          choices: [
            { id: "ch-public", properties: { displayName: "Public" } },
            {
              id: "ch-internal",
              properties: { displayName: "Internal", badgeConfig: { priorityOverride: "2" } },
            },
            {
              id: "ch-confidential",
              properties: { displayName: "Confidential", badgeConfig: { priorityOverride: "1" } },
            },
          ],
        },
      },
    ],
  },
  {
    name: `labels/${LEGAL_HOLD}@1`,
    id: LEGAL_HOLD,
    revisionId: "1",
    labelType: "SHARED",
    properties: { title: "Legal hold" },
    lifecycle: { state: "PUBLISHED" },
    fields: [],
  },
  {
    // Never published: not part of the taxonomy a scan reads.
    name: "labels/lblDraft03",
    id: "lblDraft03",
    revisionId: "1",
    labelType: "ADMIN",
    properties: { title: "Draft taxonomy" },
    lifecycle: { state: "UNPUBLISHED_DRAFT" },
    fields: [],
  },
];

/** The classification label applied with one of its choices. */
function classified(choice: string) {
  return {
    id: CLASSIFICATION,
    revisionId: "3",
    fields: { fldLevel: { id: "fldLevel", valueType: "selection", selection: [choice] } },
  };
}

type TEvent = NonNullable<TGoogleFixture["activities"][string][number]["events"]>[number];

/** A Reports event whose parameters are all single-valued, in the order given. */
function event(name: string, parameters: Record<string, string>): TEvent {
  return { name, parameters: Object.entries(parameters).map(([key, value]) => ({ name: key, value })) };
}

function activity(app: string, id: string, time: string, email: string, events: TEvent[]) {
  return {
    kind: "admin#reports#activity",
    id: { time, uniqueQualifier: id, applicationName: app, customerId: "C0abc" },
    actor: { email, profileId: `profile-${email}` },
    events: events.map((e) => ({ type: app === "drive" ? "access" : app, ...e })),
  };
}

/** An OAuth token a user granted to a web (not native) app; `anonymous` when Google never registered the client. */
function webToken(
  clientId: string,
  displayText: string,
  scopes: string[],
  opts: { anonymous?: boolean } = {},
): TGoogleFixture["tokens"][string][number] {
  return { clientId, displayText, scopes, anonymous: opts.anonymous ?? false, nativeApp: false };
}
