import {
  fileReach,
  type TAppGrant,
  type TFileReach,
  type TSharedDrive,
  type TSourceFile,
  type TSourceUser,
} from "@posture/connectors";
import { addGrant, evaluateApp, type TAppAggregate } from "./app-rules";
import { ruleContext, type TRuleEngineOptions } from "./context";
import { evaluateSharedDrive } from "./drive-rules";
import { evaluateFile } from "./file-rules";
import { evaluateUser, excessAdminsFinding } from "./identity-rules";
import type { TDetectedFinding } from "./types";

export type TRuleEngine = {
  /** A resource's own findings, returned at once: the engine keeps none of them. */
  addUser: (user: TSourceUser) => TDetectedFinding[];
  /** `reach`: the file's, when the caller already has it (`reachOf`); else computed. */
  addFile: (file: TSourceFile, reach?: TFileReach) => TDetectedFinding[];
  /** How many people can open the file, from the users fed so far and the directory's groups. */
  reachOf: (file: TSourceFile) => TFileReach;
  addSharedDrive: (drive: TSharedDrive) => TDetectedFinding[];
  addAppGrant: (grant: TAppGrant) => void;
  /**
   * The findings only the whole workspace shows (each app over all its grants, too many admins),
   * from what was fed so far; may be called more than once.
   */
  finish: () => TDetectedFinding[];
};

/**
 * Streams a scan: resources are fed one at a time and their findings handed straight back; only
 * small per-app and admin tallies are kept, so neither a large tenant's resources nor its
 * findings ever sit in memory. A resource fed twice (a page re-read) yields its findings twice,
 * with the same fingerprints: whoever stores them keeps one per fingerprint, the most severe.
 */
export function createRuleEngine(opts: TRuleEngineOptions): TRuleEngine {
  const ctx = ruleContext(opts);
  const apps = new Map<string, TAppAggregate>();
  // Keyed by user id, so a user read twice is counted once.
  const activeUsers = new Set<string>();
  const admins = new Map<string, string>();
  const directory = { internal: ctx.internal, groups: ctx.groups, peopleCount: () => activeUsers.size };
  const reachOf = (file: TSourceFile) => fileReach(directory, file);
  return {
    addUser: (user) => {
      if (!user.suspended) {
        activeUsers.add(user.id);
        if (user.isAdmin) admins.set(user.id, user.email);
      }
      return evaluateUser(ctx, user);
    },
    addFile: (file, reach) => evaluateFile(ctx, file, reach ?? reachOf(file), activeUsers.size),
    reachOf,
    addSharedDrive: (drive) => {
      const finding = evaluateSharedDrive(ctx, drive);
      return finding ? [finding] : [];
    },
    addAppGrant: (grant) => addGrant(apps, grant),
    finish: () => {
      const all: TDetectedFinding[] = [];
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
