import type { TAppGrant, TPermission, TSharedDrive, TSourceFile, TSourceUser } from "@posture/connectors";
import { createRuleEngine } from "./rule-engine";
import { SEVERITY_RANK, type TDetectedFinding } from "./types";

// Small builders for crafted rule fixtures (tests only).

export const NOW = new Date("2025-06-01T12:00:00.000Z");
export const DAY_MS = 86_400_000;
export const INTERNAL = ["acme.com"];
export const TRUSTED = ["partner.com"];

export function engine(trustedDomains: readonly string[] = TRUSTED) {
  return collectingEngine({ internalDomains: INTERNAL, trustedDomains, now: NOW });
}

/**
 * The engine with its findings kept in memory, one per fingerprint (the most severe), as the scan's
 * staging keeps them in the database: what a test of the rules wants to look at.
 */
export function collectingEngine(opts: Parameters<typeof createRuleEngine>[0]) {
  const e = createRuleEngine(opts);
  const found = new Map<string, TDetectedFinding>();
  const keep = (findings: TDetectedFinding[]) => {
    for (const f of findings) {
      const previous = found.get(f.fingerprint);
      if (!previous || SEVERITY_RANK[f.severity] > SEVERITY_RANK[previous.severity])
        found.set(f.fingerprint, f);
    }
  };
  return {
    addUser: (u: TSourceUser) => keep(e.addUser(u)),
    addFile: (f: TSourceFile) => keep(e.addFile(f)),
    addSharedDrive: (d: TSharedDrive) => keep(e.addSharedDrive(d)),
    addAppGrant: (g: TAppGrant) => e.addAppGrant(g),
    findings: () => [...found.values(), ...e.finish()],
  };
}

export function file(
  id: string,
  permissions: Array<Omit<TPermission, "id">>,
  name = "Quarterly plan",
): TSourceFile {
  return {
    id,
    name,
    mimeType: "application/vnd.google-apps.document",
    ownerEmail: "owner@acme.com",
    driveId: null,
    permissions: [
      { id: `${id}-owner`, type: "user", role: "owner", emailAddress: "owner@acme.com" },
      ...permissions.map((p, i) => ({ ...p, id: `${id}-${i}` })),
    ],
    modifiedAt: NOW.toISOString(),
    sizeBytes: 1000,
  };
}

export function user(id: string, over: Partial<TSourceUser> = {}): TSourceUser {
  return {
    id,
    email: `${id}@acme.com`,
    name: id,
    isAdmin: false,
    mfaEnabled: true,
    suspended: false,
    lastLoginAt: new Date(NOW.getTime() - DAY_MS).toISOString(),
    createdAt: new Date(NOW.getTime() - 400 * DAY_MS).toISOString(),
    ...over,
  };
}

export function drive(id: string, emails: string[], domainUsersOnly: boolean): TSharedDrive {
  return {
    id,
    name: `Drive ${id}`,
    members: emails.map((email) => ({ email, role: "writer" as const })),
    restrictions: { domainUsersOnly, driveMembersOnly: false, copyRequiresWriterPermission: false },
    fileCount: 3,
  };
}

export function grant(id: string, over: Partial<TAppGrant> = {}): TAppGrant {
  return {
    id,
    clientId: `client-${id}`,
    label: `App ${id}`,
    kind: "oauth_app",
    publisher: "Publisher",
    isKnownPublisher: true,
    scopes: ["openid"],
    userEmail: "someone@acme.com",
    grantedAt: NOW.toISOString(),
    ...over,
  };
}
