import type { TGithubCollaborator } from "./types";

// The demo GitHub organization over time (its `revision`, one tenant day each, advanced by a sync's
// `demo.advance` as the suites' demo tenants are): every fourth revision something happens to one
// of its quiet `service-NNNN` repositories, alternately
//   - someone makes it public, and it is made private again three weeks (21 revisions) later;
//   - an outside collaborator (`vendor-<revision>`) is given write on it, and removed four weeks
//     (28 revisions) later.
// So a weekly scan (seven revisions) finds a new exposure or two and sees an older one fixed, as a
// real organization drifts. Which repository is a function of the revision alone: the organization
// at a revision reads the same every time, and a repository's state is computed without reading
// the others. The twelve curated repositories never drift: the docs and the tests name their
// findings exactly at every revision.

/** Revisions between two drift events. */
export const GITHUB_DRIFT_EVERY = 4;
/** How long a repository made public stays so (three weeks of daily revisions). */
export const GITHUB_PUBLIC_FOR = 21;
/** How long a drifted outside collaborator keeps their access (four weeks). */
export const GITHUB_COLLABORATOR_FOR = 28;

/** What the revisions changed in one repository, at the revision read. */
export type TGithubRepoDrift = { public: boolean; collaborators: TGithubCollaborator[] };

/** The drift of an organization at a revision: by repository index, only those that changed. */
export type TGithubDrift = ReadonlyMap<number, TGithubRepoDrift>;

/**
 * A stable spread of a drift event (its number) over `n` repositories: murmur3's finalizer, so
 * consecutive events land far apart and rarely on the same repository.
 */
function spread(event: number, n: number): number {
  let h = Math.imul(event ^ (event >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return ((h ^ (h >>> 16)) >>> 0) % n;
}

/** The outside collaborator a drift event adds, with the numeric id GitHub would give them. */
export const githubDriftCollaborator = (k: number): TGithubCollaborator => ({
  id: String(60_000 + k),
  login: `vendor-${k}`,
  role: "write",
});

/**
 * What is drifted at `revision` in an organization of `count` repositories whose first `curated`
 * never drift. Events older than their lifetime are over and skipped: the work is the events of
 * the last four weeks, whatever the revision.
 */
export function githubDriftAt(count: number, curated: number, revision: number): TGithubDrift {
  const drift = new Map<number, TGithubRepoDrift>();
  const quiet = count - curated;
  if (quiet <= 0 || revision < GITHUB_DRIFT_EVERY) return drift;
  const oldest = Math.max(
    GITHUB_DRIFT_EVERY,
    revision - Math.max(GITHUB_PUBLIC_FOR, GITHUB_COLLABORATOR_FOR),
  );
  const first = Math.ceil(oldest / GITHUB_DRIFT_EVERY) * GITHUB_DRIFT_EVERY;
  for (let k = first; k <= revision; k += GITHUB_DRIFT_EVERY) {
    const index = curated + spread(k / GITHUB_DRIFT_EVERY, quiet);
    const madePublic = (k / GITHUB_DRIFT_EVERY) % 2 === 1;
    const age = revision - k;
    if (madePublic ? age >= GITHUB_PUBLIC_FOR : age >= GITHUB_COLLABORATOR_FOR) continue;
    const entry = drift.get(index) ?? { public: false, collaborators: [] };
    if (madePublic) entry.public = true;
    else entry.collaborators.push(githubDriftCollaborator(k));
    drift.set(index, entry);
  }
  return drift;
}
