import { and, count, eq } from "drizzle-orm";
import { connectors, type Db } from "@posture/db";
import { createSourceAdapter } from "@posture/connectors";
import { lockOrg } from "./locks";
import {
  AppError,
  encryptSecret,
  notFound,
  PLANS,
  recordAudit,
  type TPlanId,
  type TPrincipal,
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
};

type TRow = Omit<typeof connectors.$inferSelect, "orgId" | "credentialsEnc" | "config" | "healthDetail">;

function toView(r: TRow): TConnectorView {
  return { ...r, lastScanAt: r.lastScanAt?.toISOString() ?? null, createdAt: r.createdAt.toISOString() };
}

export async function listConnectors(db: Db, orgId: string): Promise<TConnectorView[]> {
  const rows = await db
    .select(viewColumns)
    .from(connectors)
    .where(eq(connectors.orgId, orgId))
    .orderBy(connectors.createdAt);
  return rows.map(toView);
}

/** The connector, scoped to the organization: another tenant's id is indistinguishable from a missing one. */
export async function getConnector(db: Db, orgId: string, id: string) {
  const [row] = await db
    .select()
    .from(connectors)
    .where(and(eq(connectors.orgId, orgId), eq(connectors.id, id)))
    .limit(1);
  if (!row) throw notFound("Connector");
  return row;
}

export type TCreateConnector = {
  type: "google_workspace" | "microsoft_365";
  displayName: string;
  mode: "real" | "demo";
  credentials?: unknown;
  config?: Record<string, unknown>;
};

export async function createConnector(
  db: Db,
  encryptionKey: Buffer,
  principal: TPrincipal,
  input: TCreateConnector,
): Promise<TConnectorView> {
  // Validates credentials (real mode) and config exactly as a scan will read them: 400 with
  // per-field details now, rather than a failed scan later. Nothing is contacted here.
  createSourceAdapter({
    type: input.type,
    mode: input.mode,
    connectorId: "validation",
    credentials: input.credentials,
    config: input.config ?? {},
  });
  const max = PLANS[principal.org.plan as TPlanId].sourcesMax;
  const view = await db.transaction(async (tx) => {
    // Serialise connects per organization so two concurrent requests cannot both take the last slot.
    await tx.execute(lockOrg(principal.org.id, "connectors"));
    if (max !== null) {
      const [used] = await tx
        .select({ n: count() })
        .from(connectors)
        .where(eq(connectors.orgId, principal.org.id));
      if ((used?.n ?? 0) >= max) {
        throw new AppError(
          "plan_limit_reached",
          `Your plan allows ${max} connected source${max === 1 ? "" : "s"}`,
          {
            limit: { sources: max },
          },
        );
      }
    }
    const [row] = await tx
      .insert(connectors)
      .values({
        orgId: principal.org.id,
        type: input.type,
        displayName: input.displayName,
        mode: input.mode,
        credentialsEnc:
          input.credentials === undefined
            ? null
            : encryptSecret(encryptionKey, JSON.stringify(input.credentials)),
        config: input.config ?? {},
      })
      .returning(viewColumns);
    if (!row) throw new Error("connector insert returned nothing");
    return toView(row);
  });
  await recordAudit(db, {
    orgId: principal.org.id,
    action: "CONNECTOR_CONNECTED",
    target: view.id,
    userId: principal.userId,
    userEmail: principal.userEmail,
    metadata: { type: view.type, mode: view.mode, displayName: view.displayName },
  });
  return view;
}

/** Removes the connector; its findings, grants and tickets go with it (foreign-key cascades). */
export async function deleteConnector(db: Db, principal: TPrincipal, id: string): Promise<void> {
  const existing = await getConnector(db, principal.org.id, id);
  await db.delete(connectors).where(and(eq(connectors.orgId, principal.org.id), eq(connectors.id, id)));
  await recordAudit(db, {
    orgId: principal.org.id,
    action: "CONNECTOR_DISCONNECTED",
    target: id,
    userId: principal.userId,
    userEmail: principal.userEmail,
    metadata: { type: existing.type, displayName: existing.displayName },
  });
}
