import type { TAppGrant, TPermission, TSharedDrive, TSourceFile, TSourceUser } from "@posture/connectors";
import type { TScriptedSeed, TScriptedTenant } from "./scripted-source";

// A small tenant with something for every rule, and one script of changes that touches files,
// permissions, users, shared drives and grants: what the incremental-scan tests replay.

export const DOMAIN = "acme.test";
const at = (day: number) => new Date(Date.UTC(2026, 0, day)).toISOString();

export function sampleUser(n: number, over: Partial<TSourceUser> = {}): TSourceUser {
  return {
    id: `u${n}`,
    email: `user${n}@${DOMAIN}`,
    name: `User ${n}`,
    isAdmin: n <= 2,
    mfaEnabled: n % 3 !== 0,
    suspended: false,
    lastLoginAt: at(10 + (n % 5)),
    createdAt: at(1),
    ...over,
  };
}

const SHARES: TPermission[][] = [
  [],
  [{ id: "anyone", type: "anyone", role: "reader" }],
  [{ id: "p-ext", type: "user", role: "writer", emailAddress: "someone@gmail.com" }],
  [{ id: "p-dom", type: "domain", role: "reader", domain: "partner.example" }],
  [{ id: "p-int", type: "user", role: "writer", emailAddress: `user2@${DOMAIN}` }],
];
const NAMES = ["Payroll 2026.xlsx", "Roadmap.docx", "passwords.txt", "Team lunch.pdf", "Board minutes.docx"];

export function sampleFile(n: number, over: Partial<TSourceFile> = {}): TSourceFile {
  const owner = `user${1 + (n % 6)}@${DOMAIN}`;
  return {
    id: `f${n}`,
    name: `${n} ${NAMES[n % NAMES.length] ?? "file"}`,
    mimeType: "application/octet-stream",
    ownerEmail: owner,
    driveId: n % 7 === 0 ? "d1" : null,
    permissions: [
      { id: `owner-${n}`, type: "user", role: "owner", emailAddress: owner },
      ...(SHARES[n % SHARES.length] ?? []),
    ],
    modifiedAt: at(2 + (n % 20)),
    sizeBytes: 1000 + n,
    label: n % 11 === 0 ? "Confidential" : null,
    ...over,
  };
}

export function sampleDrive(id: string, over: Partial<TSharedDrive> = {}): TSharedDrive {
  return {
    id,
    name: `Drive ${id}`,
    members: [
      { email: `user1@${DOMAIN}`, role: "organizer" },
      { email: "contractor@gmail.com", role: "writer" },
    ],
    restrictions: { domainUsersOnly: false, driveMembersOnly: false, copyRequiresWriterPermission: false },
    fileCount: 3,
    ...over,
  };
}

export function sampleGrant(n: number, over: Partial<TAppGrant> = {}): TAppGrant {
  return {
    id: `g${n}`,
    clientId: `client-${n % 3}`,
    label: `App ${n % 3}`,
    kind: n % 2 === 0 ? "ai_agent" : "oauth_app",
    publisher: `Publisher ${n % 3}`,
    isKnownPublisher: n % 3 === 0,
    scopes:
      n % 2 === 0
        ? ["https://www.googleapis.com/auth/drive", "https://mail.google.com/"]
        : ["https://www.googleapis.com/auth/userinfo.email"],
    userEmail: `user${1 + (n % 6)}@${DOMAIN}`,
    grantedAt: at(3),
    ...over,
  };
}

export function sampleSeed(files = 60): TScriptedSeed {
  return {
    domain: DOMAIN,
    users: Array.from({ length: 8 }, (_, i) => sampleUser(i + 1)),
    files: Array.from({ length: files }, (_, i) => sampleFile(i)),
    drives: [
      sampleDrive("d1"),
      sampleDrive("d2", {
        restrictions: { domainUsersOnly: true, driveMembersOnly: true, copyRequiresWriterPermission: true },
      }),
    ],
    grants: Array.from({ length: 6 }, (_, i) => sampleGrant(i)),
    settings: [],
  };
}

/**
 * One revision of changes: files added, re-shared, unshared, renamed (one of them twice), deleted
 * (one right after being added), a user and their drive gone, a user newly an admin without MFA,
 * a shared drive gone with its files, grants added and revoked.
 */
export function applySampleChanges(t: TScriptedTenant, round = 1): void {
  const base = 1000 * round;
  t.putFile(sampleFile(base + 1, { permissions: [{ id: "anyone", type: "anyone", role: "writer" }] }));
  t.putFile(sampleFile(base + 2));
  t.putFile(sampleFile(base + 3));
  t.removeFile(`f${base + 3}`);
  // Public link removed, then an outside writer added: the last report wins.
  t.putFile(sampleFile(1, { permissions: [] }));
  t.putFile(
    sampleFile(1, {
      permissions: [{ id: "p-x", type: "user", role: "writer", emailAddress: "x@gmail.com" }],
    }),
  );
  t.putFile(sampleFile(2, { permissions: [] }));
  t.putFile(sampleFile(8, { permissions: [{ id: "anyone", type: "anyone", role: "reader" }] }));
  t.putFile(sampleFile(10, { name: "Quarterly salaries.xlsx" }));
  t.removeFile("f12");
  t.removeFile("f16");
  t.removeUser(`user6@${DOMAIN}`);
  t.putUser(sampleUser(4, { isAdmin: true, mfaEnabled: false }));
  t.putUser(sampleUser(9, { mfaEnabled: false }));
  t.removeDrive("d1");
  t.putGrant(
    sampleGrant(20, {
      clientId: "client-new",
      label: "New agent",
      kind: "ai_agent",
      isKnownPublisher: false,
    }),
  );
  t.removeGrant("g1");
  t.removeGrant("g3");
}
