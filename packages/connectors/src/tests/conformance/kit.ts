import type { TConnectorType, TFileChange, TSourceAdapter, TSourceFile } from "../../types";
import type { TSourceWriter, TWriteAction, TWriteFile } from "../../write";

// What a source hands the conformance suite (suite.ts): how to start its fake, make an adapter and
// a writer pointed at it, seed resources, change the tenant, and make the fake throttle or expire
// tokens, with the vendor's own answers (the fakes' hooks). One kit per source; the suite is
// written once and runs over every kit in SOURCE_KITS (kits.ts).

/** The properties every source's adapter and fake must have (docs/sources/adding-a-source.md). */
export type TConformanceCheck = "paging" | "throttling" | "tokenExpiry" | "changeFeed" | "writes";

export const CONFORMANCE_CHECKS: readonly TConformanceCheck[] = [
  "paging",
  "throttling",
  "tokenExpiry",
  "changeFeed",
  "writes",
];

/** One fake tenant, started for one test, and the handles the checks drive it through. */
export type TKitSession = {
  /** A new adapter over the fake (its own token cache), as each scan makes one. */
  adapter: () => TSourceAdapter;
  /** A new writer over the fake, with the permissions remediation needs. */
  writer: () => TSourceWriter;
  /** The ids of the resources the session added to the fixture (`resources` of them). */
  seeded: string[];
  /** Requests for a resource listing's page after its first (a page token, `page` ≥ 2…). */
  laterPages: () => number;
  /** The next `count` resource listing requests are throttled: the vendor's 429 with `Retry-After`. */
  throttle: (opts: { count: number; retryAfterSec: number }) => void;
  /** Every request the fake received so far (throttled ones included). */
  requests: () => number;
  /** Every wait (ms) the adapter asked for, in order: the session's sleep records them. */
  waits: () => number[];
  /** Every access token the fake issued so far stops working (the vendor's 401 for an expired one). */
  expireTokens: () => void;
  /**
   * What each access token the fake issued so far was for, in order: its grant (Google's subject
   * and scopes, Graph's audience and roles, GitHub's installation and permissions), not its value.
   */
  tokensIssued: () => string[];
  /** Changes the tenant as its people would: at least one resource added, one changed, one removed. */
  change: () => void;
  /** What a write check changes: a reversible removal of one grant on one resource. */
  write: { file: TWriteFile; permissionId: string; action: TWriteAction };
  /**
   * What happens at the source between an undo's call and its effect, when something must (GitHub
   * invites a removed outside collaborator back; access returns when they accept).
   */
  settleRestore?: () => void;
  /** Requests the fake refused as the vendor's description does not allow them (asserted empty). */
  refused: () => unknown[];
  close: () => Promise<void>;
};

export type TSourceKit = {
  type: TConnectorType;
  label: string;
  /** Resources per page of the fake's resource listing (so the suite can seed more than a page). */
  pageSize: number;
  start: (opts: { resources: number }) => Promise<TKitSession>;
  /**
   * The checks that cannot apply to this source, each with the reason (reported as skipped, with
   * it, never silently passed).
   */
  skip: Partial<Record<TConformanceCheck, string>>;
};

/**
 * What a store does with one incremental read (types.ts `TFileChange`): the last report of a
 * resource wins; a gone drive or owner drops each stored resource of it this read did not report.
 */
export function applyChanges(
  stored: ReadonlyMap<string, TSourceFile>,
  changes: readonly TFileChange[],
): Map<string, TSourceFile> {
  const out = new Map(stored);
  const reported = new Set(changes.flatMap((c) => (c.kind === "file" ? [c.file.id] : [])));
  for (const change of changes) {
    if (change.kind === "file") out.set(change.file.id, change.file);
    if (change.kind === "removed") out.delete(change.fileId);
    if (change.kind !== "driveGone" && change.kind !== "ownerGone") continue;
    for (const [id, file] of out) {
      if (reported.has(id)) continue;
      if (change.kind === "driveGone" && file.driveId === change.driveId) out.delete(id);
      if (change.kind === "ownerGone" && file.driveId === null && file.ownerEmail === change.ownerEmail)
        out.delete(id);
    }
  }
  return out;
}
