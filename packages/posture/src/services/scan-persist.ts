import { and, eq, inArray, notInArray } from "drizzle-orm";
import {
  allowLongStatements,
  connectors,
  findings,
  fromExcluded,
  JOB_STATEMENT_TIMEOUT_MS,
  oauthGrants,
  scans,
  SEVERITY_RANK,
  type Db,
  type TSeverity,
} from "@posture/db";
import type { TAppGrant } from "@posture/connectors";
import type { TDetectedFinding } from "../engine";
import { lockOrg } from "./locks";
import { computeOrgPosture } from "./posture";

const CHUNK = 1_000;

function* chunks<T>(items: T[], size = CHUNK): Generator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}

export type TPersistInput = {
  scanId: string;
  orgId: string;
  connector: { id: string; type: string; displayName: string };
  detected: TDetectedFinding[];
  grants: TAppGrant[];
  resourceCount: number;
  now: Date;
  /** Runs in the scan's transaction once its results are written (the event outbox). */
  withinTransaction?: (tx: Db, result: TPersistResult) => Promise<void>;
};

export type TFindingRef = {
  id: string;
  ruleId: string;
  category: string;
  severity: TSeverity;
  title: string;
  resourceName: string;
};

export type TPersistResult = {
  newFindings: TFindingRef[];
  resolvedFindings: TFindingRef[];
  findingsTotal: number;
  postureScore: number;
};

/**
 * Applies one scan's detections to the stored findings in a single transaction: new fingerprints
 * are inserted (or reopened), missing ones resolved, changed ones updated; unchanged rows are not
 * written, so an unchanged rescan costs one read. A retried job re-runs this against the same state
 * and, once the scan row is COMPLETE, is skipped altogether.
 */
export async function persistScan(db: Db, input: TPersistInput): Promise<TPersistResult | null> {
  return db.transaction(async (tx) => {
    // A large tenant's scan writes tens of thousands of rows: past the per-request statement bound.
    await tx.execute(allowLongStatements(JOB_STATEMENT_TIMEOUT_MS));
    await tx.execute(lockOrg(input.orgId, "findings"));
    // Another attempt of the same job may have finished while this one read the source.
    const [current] = await tx.select({ status: scans.status }).from(scans).where(eq(scans.id, input.scanId));
    if (!current || current.status === "COMPLETE" || current.status === "FAILED") return null;
    const existing = await tx
      .select({
        id: findings.id,
        fingerprint: findings.fingerprint,
        status: findings.status,
        severity: findings.severity,
        title: findings.title,
        ruleId: findings.ruleId,
        category: findings.category,
        resourceName: findings.resourceName,
      })
      .from(findings)
      .where(eq(findings.connectorId, input.connector.id));
    const byFingerprint = new Map(existing.map((f) => [f.fingerprint, f]));
    const seen = new Set<string>();
    const toInsert: Array<typeof findings.$inferInsert> = [];
    const reopened: string[] = [];
    const changed: Array<{ id: string; d: TDetectedFinding }> = [];
    const newFindings: TFindingRef[] = [];
    // New rows go out a batch at a time as the detections are walked: a first scan of a large
    // workspace never holds all its new rows at once beside the detections.
    const insertBatch = async () => {
      const batch = toInsert.splice(0);
      if (batch.length === 0) return;
      const rows = await tx
        .insert(findings)
        .values(batch)
        .returning({ id: findings.id, fingerprint: findings.fingerprint });
      const byFp = new Map(batch.map((b) => [b.fingerprint, b]));
      for (const r of rows) {
        const b = byFp.get(r.fingerprint);
        if (b) newFindings.push(refOf(r.id, b));
      }
    };

    for (const d of input.detected) {
      if (seen.has(d.fingerprint)) continue;
      seen.add(d.fingerprint);
      const prev = byFingerprint.get(d.fingerprint);
      if (!prev) {
        const row = {
          orgId: input.orgId,
          connectorId: input.connector.id,
          connectorType: input.connector.type,
          fingerprint: d.fingerprint,
          ruleId: d.ruleId,
          category: d.category,
          severity: d.severity,
          severityRank: SEVERITY_RANK[d.severity],
          title: d.title,
          resourceId: d.resourceId,
          resourceName: d.resourceName,
          resourceType: d.resourceType,
          details: d.details,
          detectedAt: input.now,
          lastSeenScanId: input.scanId,
        };
        toInsert.push(row);
        if (toInsert.length >= CHUNK) await insertBatch();
        continue;
      }
      if (prev.status === "RESOLVED") {
        reopened.push(prev.id);
        newFindings.push(refOf(prev.id, d));
      }
      if (prev.severity !== d.severity || prev.title !== d.title) changed.push({ id: prev.id, d });
    }

    await insertBatch();
    for (const batch of chunks(reopened)) {
      await tx
        .update(findings)
        .set({ status: "OPEN", resolvedAt: null, detectedAt: input.now, lastSeenScanId: input.scanId })
        .where(inArray(findings.id, batch));
    }
    for (const { id, d } of changed) {
      await tx
        .update(findings)
        .set({
          severity: d.severity,
          severityRank: SEVERITY_RANK[d.severity],
          title: d.title,
          details: d.details,
        })
        .where(eq(findings.id, id));
    }
    const resolved = existing.filter((f) => f.status === "OPEN" && !seen.has(f.fingerprint));
    for (const batch of chunks(resolved)) {
      await tx
        .update(findings)
        .set({ status: "RESOLVED", resolvedAt: input.now })
        .where(
          inArray(
            findings.id,
            batch.map((f) => f.id),
          ),
        );
    }

    await replaceGrants(tx as unknown as Db, input);
    const findingsTotal = seen.size;
    await tx
      .update(connectors)
      .set({
        resourceCount: input.resourceCount,
        findingCount: findingsTotal,
        lastScanAt: input.now,
        healthStatus: "healthy",
        healthDetail: null,
      })
      .where(eq(connectors.id, input.connector.id));

    const posture = await computeOrgPosture(tx as unknown as Db, { orgId: input.orgId });
    await tx
      .update(scans)
      .set({
        status: "COMPLETE",
        resources: input.resourceCount,
        findingsNew: newFindings.length,
        findingsResolved: resolved.length,
        findingsTotal,
        postureScore: posture.score,
        breakdown: posture as unknown as Record<string, unknown>,
        completedAt: input.now,
      })
      .where(eq(scans.id, input.scanId));

    const result: TPersistResult = {
      newFindings,
      resolvedFindings: resolved.map((f) => refOf(f.id, f)),
      findingsTotal,
      postureScore: posture.score,
    };
    await input.withinTransaction?.(tx, result);
    return result;
  });
}

/** What events need of a finding, from a detection, an inserted row or a stored one alike. */
function refOf(id: string, d: Omit<TFindingRef, "id">): TFindingRef {
  return {
    id,
    ruleId: d.ruleId,
    category: d.category,
    severity: d.severity,
    title: d.title,
    resourceName: d.resourceName,
  };
}

/** The connector's apps and agents as of this scan (used by the timeline and agent views). */
async function replaceGrants(db: Db, input: TPersistInput): Promise<void> {
  const ids = input.grants.map((g) => g.id);
  await db
    .delete(oauthGrants)
    .where(
      ids.length > 0
        ? and(eq(oauthGrants.connectorId, input.connector.id), notInArray(oauthGrants.externalId, ids))
        : eq(oauthGrants.connectorId, input.connector.id),
    );
  for (const batch of chunks(input.grants, 500)) {
    await db
      .insert(oauthGrants)
      .values(
        batch.map((g) => ({
          orgId: input.orgId,
          connectorId: input.connector.id,
          externalId: g.id,
          clientId: g.clientId,
          label: g.label,
          kind: g.kind,
          publisher: g.publisher,
          isKnownPublisher: g.isKnownPublisher,
          scopes: g.scopes,
          userEmail: g.userEmail,
          grantedAt: new Date(g.grantedAt),
        })),
      )
      .onConflictDoUpdate({
        target: [oauthGrants.connectorId, oauthGrants.externalId],
        set: fromExcluded(oauthGrants, ["label", "clientId", "scopes", "isKnownPublisher"]),
      });
  }
}
