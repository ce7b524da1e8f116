import type { TAppGrant, TSharedDrive, TSourceFile, TSourceUser } from "@posture/connectors";
import { addGrant, evaluateApp, type TAppAggregate } from "./app-rules";
import { ruleContext, type TRuleEngineOptions } from "./context";
import { evaluateSharedDrive } from "./drive-rules";
import { evaluateFile } from "./file-rules";
import { evaluateUser, excessAdminsFinding } from "./identity-rules";
import { SEVERITY_RANK, type TDetectedFinding } from "./types";

export type TRuleEngine = {
  addUser: (user: TSourceUser) => void;
  addFile: (file: TSourceFile) => void;
  addSharedDrive: (drive: TSharedDrive) => void;
  addAppGrant: (grant: TAppGrant) => void;
  /** Everything found so far; may be called more than once. */
  findings: () => TDetectedFinding[];
};

/**
 * Streams a scan: resources are fed one at a time and only findings (plus small per-app and
 * admin tallies) are kept, so a 100,000-file tenant never sits in memory.
 */
export function createRuleEngine(opts: TRuleEngineOptions): TRuleEngine {
  const ctx = ruleContext(opts);
  // Keyed by fingerprint: a resource seen twice (a page re-read) still yields one finding per rule.
  const found = new Map<string, TDetectedFinding>();
  const apps = new Map<string, TAppAggregate>();
  // Keyed by user id, so a user read twice is counted once.
  const activeUsers = new Set<string>();
  const admins = new Map<string, string>();

  const keep = (finding: TDetectedFinding | null) => {
    if (finding === null) return;
    const previous = found.get(finding.fingerprint);
    if (!previous || SEVERITY_RANK[finding.severity] > SEVERITY_RANK[previous.severity]) {
      found.set(finding.fingerprint, finding);
    }
  };

  return {
    addUser: (user) => {
      if (!user.suspended) {
        activeUsers.add(user.id);
        if (user.isAdmin) admins.set(user.id, user.email);
      }
      for (const finding of evaluateUser(ctx, user)) keep(finding);
    },
    addFile: (file) => {
      for (const finding of evaluateFile(ctx, file)) keep(finding);
    },
    addSharedDrive: (drive) => keep(evaluateSharedDrive(ctx, drive)),
    addAppGrant: (grant) => addGrant(apps, grant),
    findings: () => {
      const all = [...found.values()];
      const excess = excessAdminsFinding(ctx, activeUsers.size, [...admins.values()]);
      if (excess) all.push(excess);
      for (const app of apps.values()) {
        const finding = evaluateApp(app);
        if (finding) all.push(finding);
      }
      return all;
    },
  };
}
