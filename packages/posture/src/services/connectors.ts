import { and, count, eq } from "drizzle-orm";
import {
  connectors,
  emptyConnectorPartitions,
  organizations,
  scans,
  sweepConnectorPartitions,
  type Db,
} from "@posture/db";
import {
  accessRequirementsOf,
  createSourceAdapter,
  describeDemoWorkspace,
  GITHUB_DEMO_MEMBERS,
  githubDemoRepositoryCount,
  SourceAuthError,
  type TAccessCheck,
  type TAccessRequirement,
  type TConnectorType,
  type TSourceEndpoints,
} from "@posture/connectors";
import { withTimeout } from "@posture/jobs";
import { lockOrg } from "./locks";
import { toScanResult, type TScanResult } from "./scan-result";
import {
  AppError,
  audit,
  encryptSecret,
  firstOr404,
  iso,
  PLANS,
  type TActor,
  type TPlanId,
} from "@posture/platform";

export type TConnectorView = {
  id: string;
  type: string;
  displayName: string;
  mode: string;
  status: string;
  healthStatus: string;
  resourceCount: number;
  findingCount: number;
  lastScanAt: string | null;
  createdAt: string;
  access: TConnectorAccess | null;
  /** Remediation may write to the source (opt-in; demo connectors start opted in). */
  writeAccess: boolean;
  /** A demo source's size and revision; null for a real one. GitHub's also says its repositories. */
  demo: { files: number; users: number; revision: number; repositories?: number } | null;
};

/** The connect-time access check as stored and returned: what was granted, what is missing and why it matters. */
export type TConnectorAccess = {
  granted: Array<{ feature: string; permission: string }>;
  missing: Array<{ feature: string; permission: string; licence?: string; impact: string; detail?: string }>;
};

const viewColumns = {
  id: connectors.id,
  type: connectors.type,
  displayName: connectors.displayName,
  mode: connectors.mode,
  status: connectors.status,
  healthStatus: connectors.healthStatus,
  resourceCount: connectors.resourceCount,
  findingCount: connectors.findingCount,
  lastScanAt: connectors.lastScanAt,
  createdAt: connectors.createdAt,
  access: connectors.access,
  writeAccess: connectors.writeAccess,
  config: connectors.config,
};

type TRow = Omit<typeof connectors.$inferSelect, "orgId" | "credentialsEnc" | "healthDetail">;

function toView({ config, ...r }: TRow): TConnectorView {
  // A demo source grants everything, including one connected before access was checked.
  const access = r.access ?? (r.mode === "demo" ? demoAccess(r.type) : null);
  const seed = typeof config.seed === "string" ? config.seed : r.id;
  const demo = r.mode === "demo" ? demoSizeOf(seed, r.type, config) : null;
  return { ...r, access, demo, lastScanAt: iso(r.lastScanAt), createdAt: iso(r.createdAt) };
}

/** The size a demo config reads as, defaults applied (the config is validated when stored). */
function demoSizeOf(seed: string, type: TConnectorType, config: Record<string, unknown>) {
  const int = (v: unknown) => (typeof v === "number" && Number.isInteger(v) ? v : undefined);
  if (type === "github") {
    const repositories = githubDemoRepositoryCount({ repositoryCount: int(config.repositoryCount) });
    return {
      files: repositories,
      users: GITHUB_DEMO_MEMBERS,
      repositories,
      revision: int(config.revision) ?? 0,
    };
  }
  const { counts } = describeDemoWorkspace({
    seed,
    type,
    fileCount: int(config.fileCount),
    userCount: int(config.userCount),
  });
  return { files: counts.files, users: counts.users, revision: int(config.revision) ?? 0 };
}

function demoAccess(type: TConnectorType): TConnectorAccess {
  return toConnectorAccess(accessRequirementsOf(type).map((r) => ({ ...r, granted: true })));
}

export async function listConnectors(db: Db, input: { orgId: string }): Promise<TConnectorView[]> {
  const rows = await db
    .select(viewColumns)
    .from(connectors)
    .where(eq(connectors.orgId, input.orgId))
    .orderBy(connectors.createdAt);
  return rows.map(toView);
}

/** The connector, scoped to the organization: another tenant's id is indistinguishable from a missing one. */
export async function getConnector(db: Db, input: { orgId: string; id: string }) {
  return firstOr404(
    await db
      .select()
      .from(connectors)
      .where(and(eq(connectors.orgId, input.orgId), eq(connectors.id, input.id)))
      .limit(1),
    "Connector",
  );
}

/** One scan of one of the organization's sources (the link of scan.completed). */
export async function getScan(
  db: Db,
  input: { orgId: string; connectorId: string; scanId: string },
): Promise<TScanResult> {
  const row = firstOr404(
    await db
      .select()
      .from(scans)
      .where(
        and(
          eq(scans.orgId, input.orgId),
          eq(scans.connectorId, input.connectorId),
          eq(scans.id, input.scanId),
        ),
      )
      .limit(1),
    "Scan",
  );
  return toScanResult(row);
}

/** How long a connect waits for the source to answer its access probes, all together. */
export const ACCESS_CHECK_DEADLINE_MS = 30_000;

export function toConnectorAccess(checks: readonly TAccessCheck[]): TConnectorAccess {
  const access: TConnectorAccess = { granted: [], missing: [] };
  for (const c of checks) {
    if (c.granted) access.granted.push({ feature: c.feature, permission: c.permission });
    else
      access.missing.push({
        feature: c.feature,
        permission: c.permission,
        ...(c.licence === undefined ? {} : { licence: c.licence }),
        impact: c.impact,
        ...(c.detail === undefined ? {} : { detail: c.detail }),
      });
  }
  return access;
}

/**
 * The answer of an access probe, settled: what the source said, or, when it could not be asked
 * (down, slower than the deadline, credentials refused), every requirement missing with `detail`
 * saying it is unknown and why. Never throws: a connect does not fail on it.
 */
export async function settleAccess(
  probe: () => Promise<readonly TAccessCheck[]>,
  requirements: readonly TAccessRequirement[],
  deadlineMs: number,
): Promise<TConnectorAccess> {
  try {
    const checks = await withTimeout(
      probe(),
      deadlineMs,
      () => new Error(`no answer within ${deadlineMs} ms`),
    );
    return toConnectorAccess(checks);
  } catch (err) {
    const message = (err instanceof Error ? err.message : String(err)).slice(0, 300);
    const why =
      err instanceof SourceAuthError
        ? `the source refused the credentials (${message})`
        : `the source could not be reached (${message})`;
    return toConnectorAccess(requirements.map((r) => ({ ...r, granted: false, detail: `unknown: ${why}` })));
  }
}

/**
 * Asks the source which of the connector's requirements it grants (demo sources grant all), after
 * validating credentials and config exactly as a scan will read them (400 with per-field details).
 */
export async function checkConnectorAccess(input: {
  type: TConnectorType;
  mode: "real" | "demo";
  credentials?: unknown;
  config: Record<string, unknown>;
  endpoints?: TSourceEndpoints;
  deadlineMs?: number;
}): Promise<TConnectorAccess> {
  const adapter = createSourceAdapter({
    type: input.type,
    mode: input.mode,
    connectorId: "access-check",
    credentials: input.credentials,
    config: input.config,
    ...(input.endpoints ? { endpoints: input.endpoints } : {}),
    // An interactive request: the adapter's per-request timeout, one retry at most.
    http: { retry: { maxAttempts: 2 } },
  });
  return settleAccess(
    () => adapter.checkAccess(),
    accessRequirementsOf(input.type),
    input.deadlineMs ?? ACCESS_CHECK_DEADLINE_MS,
  );
}

export type TCreateConnector = {
  orgId: string;
  actor: TActor;
  /** The organization's effective plan: it sets how many sources may be connected. */
  plan: TPlanId;
  type: TConnectorType;
  displayName: string;
  mode: "real" | "demo";
  credentials?: unknown;
  config?: Record<string, unknown> | undefined;
  /**
   * A demo source's size: stored in its config as `fileCount` and `userCount` (GitHub:
   * `repositoryCount`), at revision 0.
   */
  demo?:
    { files?: number | undefined; users?: number | undefined; repositories?: number | undefined } | undefined;
  /** Remediation may write to the source; by default a demo connector may (its sandbox), a real one not. */
  writeAccess?: boolean | undefined;
};

/** What is stored: a demo source's size and revision joined to the rest of its config. */
function storedConfig(input: TCreateConnector): Record<string, unknown> {
  const config = { ...input.config };
  if (input.mode !== "demo") return config;
  if (input.demo?.files !== undefined) config.fileCount = input.demo.files;
  if (input.demo?.users !== undefined) config.userCount = input.demo.users;
  if (input.demo?.repositories !== undefined) config.repositoryCount = input.demo.repositories;
  config.revision ??= 0;
  return config;
}

/** A sandbox organization's sources are demo sources (docs/sandbox.md): a real one is a 409. */
async function refuseRealSourceInSandbox(db: Db, orgId: string): Promise<void> {
  const [org] = await db
    .select({ isSandbox: organizations.isSandbox })
    .from(organizations)
    .where(eq(organizations.id, orgId))
    .limit(1);
  if (org?.isSandbox)
    throw new AppError(
      "sandbox_demo_only",
      'A sandbox organization connects demo sources only: use mode "demo"',
    );
}

export async function createConnector(
  db: Db,
  input: TCreateConnector,
  deps: { encryptionKey: Buffer; sourceEndpoints?: TSourceEndpoints; accessDeadlineMs?: number },
): Promise<TConnectorView> {
  const max = PLANS[input.plan].sourcesMax;
  const refuseOverLimit = async (q: Db) => {
    if (max === null) return;
    const [used] = await q.select({ n: count() }).from(connectors).where(eq(connectors.orgId, input.orgId));
    if ((used?.n ?? 0) >= max) {
      throw new AppError(
        "plan_limit_reached",
        `Your plan allows ${max} connected source${max === 1 ? "" : "s"}`,
        {
          limit: { sources: max },
        },
      );
    }
  };
  if (input.mode === "real") await refuseRealSourceInSandbox(db, input.orgId);
  const config = storedConfig(input);
  // Validates credentials (real mode) and config exactly as a scan will read them: 400 with
  // per-field details now, rather than a failed scan later.
  createSourceAdapter({
    type: input.type,
    mode: input.mode,
    connectorId: "validation",
    credentials: input.credentials,
    config,
  });
  // A connect past the plan's limit is refused before the source is contacted (and again below,
  // under the lock, where it counts).
  await refuseOverLimit(db);
  // Which of the connector's scopes or permissions the source grants (outside the transaction:
  // the source may take seconds to answer).
  const access = await checkConnectorAccess({
    type: input.type,
    mode: input.mode,
    credentials: input.credentials,
    config,
    ...(deps.sourceEndpoints ? { endpoints: deps.sourceEndpoints } : {}),
    ...(deps.accessDeadlineMs === undefined ? {} : { deadlineMs: deps.accessDeadlineMs }),
  });
  // The connector and its audit entry commit together or not at all.
  return db.transaction(async (tx) => {
    // Serialise connects per organization so two concurrent requests cannot both take the last slot.
    await tx.execute(lockOrg(input.orgId, "connectors"));
    await refuseOverLimit(tx as unknown as Db);
    const [row] = await tx
      .insert(connectors)
      .values({
        orgId: input.orgId,
        type: input.type,
        displayName: input.displayName,
        mode: input.mode,
        credentialsEnc:
          input.credentials === undefined
            ? null
            : encryptSecret(deps.encryptionKey, JSON.stringify(input.credentials)),
        config,
        access,
        writeAccess: input.writeAccess ?? input.mode === "demo",
      })
      .returning(viewColumns);
    if (!row) throw new Error("connector insert returned nothing");
    await audit(tx, input, {
      action: "CONNECTOR_CONNECTED",
      target: row.id,
      metadata: {
        type: row.type,
        mode: row.mode,
        displayName: row.displayName,
        writeAccess: row.writeAccess,
        accessMissing: access.missing.map((m) => m.permission),
      },
    });
    return toView(row);
  });
}

export type TUpdateConnector = {
  orgId: string;
  actor: TActor;
  id: string;
  displayName?: string | undefined;
  writeAccess?: boolean | undefined;
};

/**
 * Renames a connector or turns remediation's write access on or off; the audit row (with each
 * changed field, before and after) commits with it. Nothing to change is not an error: the
 * connector is returned as it is, and nothing is audited.
 */
export async function updateConnector(db: Db, input: TUpdateConnector): Promise<TConnectorView> {
  return db.transaction(async (tx) => {
    const scoped = and(eq(connectors.orgId, input.orgId), eq(connectors.id, input.id));
    const before = firstOr404(
      await tx.select(viewColumns).from(connectors).where(scoped).for("update"),
      "Connector",
    );
    const changes: { displayName?: string; writeAccess?: boolean } = {};
    if (input.displayName !== undefined && input.displayName !== before.displayName)
      changes.displayName = input.displayName;
    if (input.writeAccess !== undefined && input.writeAccess !== before.writeAccess)
      changes.writeAccess = input.writeAccess;
    if (Object.keys(changes).length === 0) return toView(before);
    const row = firstOr404(
      await tx.update(connectors).set(changes).where(scoped).returning(viewColumns),
      "Connector",
    );
    await audit(tx, input, {
      action: "CONNECTOR_UPDATED",
      target: row.id,
      metadata: {
        type: row.type,
        displayName: row.displayName,
        changes: Object.fromEntries(
          Object.entries(changes).map(([k, after]) => [
            k,
            { before: before[k as keyof typeof changes], after },
          ]),
        ),
      },
    });
    return toView(row);
  });
}

/** Removes the connector; its findings, grants and tickets go with it (foreign-key cascades). */
export async function deleteConnector(
  db: Db,
  input: { orgId: string; actor: TActor; id: string },
): Promise<void> {
  // A connector whose first snapshot was large has store partitions of its own: emptied first,
  // instantly, instead of their rows being deleted one by one by the cascade (only once the
  // connector is known to be this organization's), and dropped once it is gone.
  const [owned] = await db
    .select({ id: connectors.id })
    .from(connectors)
    .where(and(eq(connectors.orgId, input.orgId), eq(connectors.id, input.id)));
  const emptied = owned ? await emptyConnectorPartitions(db, owned.id) : 0;
  if (emptied === null)
    throw new AppError(
      "conflict",
      "The connector's stored workspace is being written by a scan; try again shortly",
    );
  const partitioned = emptied > 0;
  await db.transaction(async (tx) => {
    const existing = firstOr404(
      await tx
        .delete(connectors)
        .where(and(eq(connectors.orgId, input.orgId), eq(connectors.id, input.id)))
        .returning({ id: connectors.id, type: connectors.type, displayName: connectors.displayName }),
      "Connector",
    );
    await audit(tx, input, {
      action: "CONNECTOR_DISCONNECTED",
      target: existing.id,
      metadata: { type: existing.type, displayName: existing.displayName },
    });
  });
  // Best effort: dropping a partition needs a moment with no scan running; an empty one left
  // behind goes with the next deletion's sweep.
  if (partitioned) await sweepConnectorPartitions(db).catch(() => 0);
}
