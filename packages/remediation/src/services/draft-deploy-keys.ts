import { sql } from "drizzle-orm";
import { reversibilityOf } from "@posture/connectors";
import { arrayLiteral, queryRows, type Db, type TSeverity } from "@posture/db";
import type { TDraftStep, TFixedFinding, TSkipped } from "./draft";

// `deploy_key_write` findings (GitHub, issue 31): each writable key the finding names is deleted
// (delete_deploy_key). The store keeps no deploy keys: the keys are the finding's details, the
// repository's name and owner the store's file row.

export type TDeployKeyFinding = {
  id: string;
  connector_id: string;
  rule_id: string;
  category: string;
  severity: TSeverity;
  resource_id: string;
  details: { keys?: Array<{ id?: unknown; title?: unknown }>; keyCount?: unknown } | null;
};

type TRepoRow = {
  connector_id: string;
  external_id: string;
  name: string;
  owner_email: string;
  drive_id: string | null;
};

export async function deployKeySteps(
  db: Db,
  q: { orgId: string; findings: readonly TDeployKeyFinding[] },
): Promise<{
  steps: TDraftStep[];
  fixed: Array<TFixedFinding & { connector_id: string; resource_id: string }>;
  skipped: TSkipped[];
}> {
  const steps: TDraftStep[] = [];
  const fixed: Array<TFixedFinding & { connector_id: string; resource_id: string }> = [];
  const skipped: TSkipped[] = [];
  if (q.findings.length === 0) return { steps, fixed, skipped };
  const repos = await queryRows<TRepoRow>(
    db,
    sql`SELECT f.connector_id, f.external_id, f.name, f.owner_email, f.drive_external_id AS drive_id
        FROM workspace_files f
        JOIN unnest(${arrayLiteral(q.findings.map((f) => f.connector_id))}::text[],
                    ${arrayLiteral(q.findings.map((f) => f.resource_id))}::text[]) AS k(connector_id, external_id)
          ON f.connector_id = k.connector_id AND f.external_id = k.external_id
        WHERE f.org_id = ${q.orgId}`,
  );
  const repoOf = new Map(repos.map((r) => [`${r.connector_id}\0${r.external_id}`, r]));
  // Undo adds the public key back under a new id: the plan says so on each step.
  const caveat = reversibilityOf("github", "delete_deploy_key");
  const undoNote = caveat.reversible ? (caveat.caveat ?? null) : null;
  for (const f of q.findings) {
    const repo = repoOf.get(`${f.connector_id}\0${f.resource_id}`);
    const keys = (f.details?.keys ?? []).flatMap((k) =>
      typeof k.id === "string" ? [{ id: k.id, title: typeof k.title === "string" ? k.title : "" }] : [],
    );
    if (!repo || keys.length === 0) {
      skipped.push({
        findingId: f.id,
        ref: null,
        reason: "Nothing left to remove in the latest scan: the next scan resolves it",
      });
      continue;
    }
    const count = typeof f.details?.keyCount === "number" ? f.details.keyCount : keys.length;
    // Findings list at most 25 keys: with more, the rest are left for the next plan.
    const complete = keys.length >= count;
    for (const k of keys)
      steps.push({
        key: `dkey:${f.connector_id}:${repo.external_id}:${k.id}`,
        connectorId: f.connector_id,
        action: "delete_deploy_key",
        resource: {
          kind: "deploy_key",
          fileId: repo.external_id,
          driveId: repo.drive_id,
          name: repo.name,
          ownerEmail: repo.owner_email,
          keyId: k.id,
          title: k.title,
        },
        before: { title: k.title, readOnly: false, ...(undoNote ? { undoNote } : {}) },
        after: null,
        findingIds: complete ? [f.id] : [],
        people: [`whoever holds the deploy key "${k.title}"`],
        order: `0:${f.connector_id}:${repo.name}:${repo.external_id}:key:${k.id}`,
      });
    if (complete)
      fixed.push({
        id: f.id,
        ruleId: f.rule_id,
        category: f.category,
        severity: f.severity,
        connector_id: f.connector_id,
        resource_id: f.resource_id,
      });
    else
      skipped.push({
        findingId: f.id,
        ref: null,
        reason: `The finding lists ${keys.length} of its ${count} writable deploy keys: these are deleted, plan again after the next scan for the rest`,
      });
  }
  return { steps, fixed, skipped };
}
