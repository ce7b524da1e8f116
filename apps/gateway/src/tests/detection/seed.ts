import {
  activityEvents,
  connectors,
  workspaceFiles,
  workspacePermissions,
  workspaceUsers,
  type Db,
} from "@posture/db";

// Test seeding for behaviour, awareness and incidents: rows written straight into the shared
// workspace and activity store, the way a scan would leave them.

const DAY_MS = 86_400_000;

/** mulberry32: small, fast, deterministic. */
export function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function poisson(rand: () => number, lambda: number): number {
  if (lambda <= 0) return 0;
  if (lambda > 30) {
    // Normal approximation (Box–Muller) for large rates.
    const z = Math.sqrt(-2 * Math.log(rand() || 1e-12)) * Math.cos(2 * Math.PI * rand());
    return Math.max(0, Math.round(lambda + Math.sqrt(lambda) * z));
  }
  const limit = Math.exp(-lambda);
  let k = 0;
  let p = rand();
  while (p > limit) {
    k++;
    p *= rand();
  }
  return k;
}

export async function demoConnector(db: Db, orgId: string, displayName = "Seeded source") {
  const [c] = await db
    .insert(connectors)
    .values({ orgId, type: "google_workspace", displayName, mode: "demo" })
    .returning();
  if (!c) throw new Error("connector insert failed");
  return c;
}

type TEvent = typeof activityEvents.$inferInsert;

export async function insertEvents(db: Db, rows: TEvent[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 5_000)
    await db.insert(activityEvents).values(rows.slice(i, i + 5_000));
}

/**
 * A steady population: each principal has its own daily rates (some quiet, some heavy) and
 * draws Poisson counts every day for `days` days before `now`; one compact row per principal,
 * day and kind (`count`).
 */
export function steadyPopulation(o: {
  orgId: string;
  connectorId: string;
  principals: number;
  days: number;
  now: Date;
  seed: number;
  domain?: string;
}): TEvent[] {
  const rand = prng(o.seed);
  const rows: TEvent[] = [];
  for (let p = 0; p < o.principals; p++) {
    const principal = `person${p}@${o.domain ?? "steady.test"}`;
    const rates = {
      share_external: rand() * 0.8,
      file_access: 1 + rand() * rand() * 60,
      download: rand() * 4,
      oauth_grant: rand() * 0.05,
      login: 1 + rand(),
    };
    for (let d = o.days; d >= 1; d--) {
      const dayStart = o.now.getTime() - d * DAY_MS;
      for (const [kind, lambda] of Object.entries(rates)) {
        const count = poisson(rand, lambda);
        if (count === 0) continue;
        rows.push({
          orgId: o.orgId,
          connectorId: o.connectorId,
          externalId: `${principal}-${kind}-${d}`,
          principal,
          kind,
          at: new Date(dayStart + Math.floor(rand() * DAY_MS * 0.9)),
          count,
        });
      }
    }
  }
  return rows;
}

/** `n` single events of one kind for one principal, a few minutes apart from `at`. */
export function burst(o: {
  orgId: string;
  connectorId: string;
  principal: string;
  kind: string;
  n: number;
  at: Date;
  tag: string;
}): TEvent[] {
  return Array.from({ length: o.n }, (_, i) => ({
    orgId: o.orgId,
    connectorId: o.connectorId,
    externalId: `${o.tag}-${i}`,
    principal: o.principal,
    kind: o.kind,
    at: new Date(o.at.getTime() + i * 120_000),
    target: o.kind === "share_external" ? `partner${i}@elsewhere.test` : null,
    count: 1,
  }));
}

export type TSeedUser = { email: string; name?: string; mfa?: boolean; admin?: boolean; dormant?: boolean };
export type TSeedFile = {
  name: string;
  owner: string;
  exposure: "public" | "external" | "internal" | "private";
  sensitivity?: "high" | "medium" | "low";
  shares?: Array<{ type: "public" | "external_user" | "external_domain"; target: string }>;
  modifiedAt?: Date;
};

/** Workspace snapshot rows, as another area's scan code writes them. */
export async function seedWorkspace(
  db: Db,
  o: { orgId: string; connectorId: string; users: TSeedUser[]; files?: TSeedFile[] },
): Promise<void> {
  if (o.users.length > 0) {
    await db.insert(workspaceUsers).values(
      o.users.map((u, i) => ({
        orgId: o.orgId,
        connectorId: o.connectorId,
        externalId: `u${i}-${u.email}`,
        email: u.email,
        name: u.name ?? u.email.split("@")[0] ?? u.email,
        isAdmin: u.admin ?? false,
        mfaEnabled: u.mfa ?? true,
        status: "active" as const,
        lastLoginAt: new Date(),
        sourceCreatedAt: new Date(Date.now() - 400 * DAY_MS),
        dormant: u.dormant ?? false,
      })),
    );
  }
  for (const [i, f] of (o.files ?? []).entries()) {
    const [file] = await db
      .insert(workspaceFiles)
      .values({
        orgId: o.orgId,
        connectorId: o.connectorId,
        externalId: `f${i}-${f.name}`,
        name: f.name,
        mimeType: "application/pdf",
        ownerEmail: f.owner,
        sensitivity: f.sensitivity ?? "medium",
        exposure: f.exposure,
        externalPermissionCount: (f.shares ?? []).length,
        modifiedAt: f.modifiedAt ?? new Date(Date.now() - 10 * DAY_MS),
      })
      .returning();
    if (!file) throw new Error("file insert failed");
    const shares = f.shares ?? [];
    if (shares.length > 0) {
      await db.insert(workspacePermissions).values(
        shares.map((s, k) => ({
          orgId: o.orgId,
          connectorId: o.connectorId,
          fileId: file.id,
          externalId: `p${i}-${k}`,
          sharingType: s.type,
          target: s.target,
          role: "reader",
        })),
      );
    }
  }
}
