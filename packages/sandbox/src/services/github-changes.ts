import {
  createSourceAdapter,
  githubDemoIndexOf,
  githubDemoRepositoryCount,
  githubOutsideEmail,
  sourceInputOf,
  VISIBILITY_PERMISSION_ID,
  type TSourceFile,
} from "@posture/connectors";
import { demoOverlayStore, type connectors, type Db } from "@posture/db";
import type { TRuntime } from "@posture/platform";
import { overlayWriter, pick, tagOf } from "./overlay-writer";

// What the GitHub scenarios change in a demo GitHub organization (issue 31): overlay entries keyed
// as the GitHub demo writer keys its own (`perm:<owner/repo>:<permission id>`, the visibility's
// id `~visibility`), so remediation finds the change and can undo it, and the next scan reads
// the repository as GitHub would answer for it.

export const GITHUB_SCENARIO_KINDS = ["repository_made_public", "outside_collaborator_added"] as const;
export type TGithubScenarioKind = (typeof GITHUB_SCENARIO_KINDS)[number];

type TConnectorRow = typeof connectors.$inferSelect;
type TRepo = { file: TSourceFile; index: number };

/** How many candidate repositories a scenario chooses among (a 20,000-repository one is not read whole). */
const CANDIDATES = 400;

const isOutsideGrant = (file: TSourceFile) => file.permissions.some((p) => p.type === "user");

/** The organization's live repositories (not archived) that `fits`, as they are now (overlay applied). */
async function candidates(
  db: Db,
  runtime: TRuntime,
  connector: TConnectorRow,
  fits: (file: TSourceFile) => boolean,
): Promise<TRepo[]> {
  const adapter = createSourceAdapter({
    ...sourceInputOf(connector, runtime),
    demoOverlay: demoOverlayStore(db, connector.id),
  });
  const repositoryCount = connector.config.repositoryCount;
  const count = githubDemoRepositoryCount({
    repositoryCount: typeof repositoryCount === "number" ? repositoryCount : undefined,
  });
  const found: TRepo[] = [];
  for await (const file of adapter.files()) {
    if (file.repository?.archived !== false || !fits(file)) continue;
    const index = githubDemoIndexOf(file.id, count);
    if (index !== null) found.push({ file, index });
    if (found.length >= CANDIDATES) break;
  }
  return found;
}

/**
 * Someone makes a private repository public (PATCH /repos/{owner}/{repo} {visibility: "public"}):
 * the public-repository finding, rated by its name and content signals like the others.
 */
async function repositoryMadePublic(db: Db, runtime: TRuntime, connector: TConnectorRow, runId: string) {
  const pool = await candidates(db, runtime, connector, (f) => f.repository?.visibility === "private");
  const target = pool[pick(runId, pool.length || 1)];
  if (!target) throw new Error("the sandbox organization has no private repository left; reset it");
  const { put } = await overlayWriter(db, connector.id);
  await put(`perm:${target.file.id}:${VISIBILITY_PERMISSION_ID}`, {
    op: "added",
    permission: { id: VISIBILITY_PERMISSION_ID, type: "anyone", role: "reader" },
    i: target.index,
  });
  return { repository: target.file.id, visibility: "public", previousVisibility: "private" };
}

/**
 * An outside collaborator is given write on a repository that had none (PUT
 * /repos/{owner}/{repo}/collaborators/{username} {permission: "push"}, the invitation accepted):
 * the outside-collaborator finding, which remediation removes (and undo invites back).
 */
async function outsideCollaboratorAdded(db: Db, runtime: TRuntime, connector: TConnectorRow, runId: string) {
  const pool = await candidates(db, runtime, connector, (f) => !isOutsideGrant(f));
  const target = pool[pick(runId, pool.length || 1)];
  if (!target)
    throw new Error(
      "the sandbox organization has no repository left without outside collaborators; reset it",
    );
  // A GitHub login: alphanumerics and single hyphens; lower case, as the adapter ids collaborators.
  const login = `contractor-${tagOf(runId).slice(0, 6)}`;
  const { put } = await overlayWriter(db, connector.id);
  await put(`perm:${target.file.id}:${login}`, {
    op: "added",
    permission: { id: login, type: "user", role: "writer", emailAddress: githubOutsideEmail(login) },
    i: target.index,
  });
  return { repository: target.file.id, collaborator: login, permission: "write", permissionId: login };
}

export async function changeGithubOrganization(
  db: Db,
  runtime: TRuntime,
  connector: TConnectorRow,
  kind: TGithubScenarioKind,
  runId: string,
): Promise<Record<string, unknown>> {
  if (connector.type !== "github") throw new Error(`${kind} needs a demo GitHub organization`);
  switch (kind) {
    case "repository_made_public":
      return repositoryMadePublic(db, runtime, connector, runId);
    case "outside_collaborator_added":
      return outsideCollaboratorAdded(db, runtime, connector, runId);
  }
}
