import { groupsByEmail, type TSourceGroup } from "@posture/connectors";
import { domainSet, type TDomainSet } from "./domains";

/** A group with at least this many members makes a grant to it a `broad_group_grant` (default). */
export const DEFAULT_BROAD_GROUP_THRESHOLD = 1_000;

export type TRuleEngineOptions = {
  /** Domains the tenant owns (sharing to them is internal); the first is the workspace's name. */
  internalDomains: readonly string[];
  /** Outside domains the organization vouches for: shares to them are one severity level lower. */
  trustedDomains: readonly string[];
  now: Date;
  /** The directory's groups, read before the files (reach and `broad_group_grant`). */
  groups?: Iterable<TSourceGroup>;
  /** Members from which a grant to a group is broad (the organization's setting). */
  broadGroupThreshold?: number;
};

export type TRuleContext = {
  internal: TDomainSet;
  trusted: TDomainSet;
  nowMs: number;
  workspaceName: string;
  groups: ReadonlyMap<string, TSourceGroup>;
  broadGroupThreshold: number;
};

export function ruleContext(opts: TRuleEngineOptions): TRuleContext {
  return {
    internal: domainSet(opts.internalDomains),
    trusted: domainSet(opts.trustedDomains),
    nowMs: opts.now.getTime(),
    workspaceName: opts.internalDomains[0] ?? "workspace",
    groups: groupsByEmail(opts.groups ?? []),
    broadGroupThreshold: opts.broadGroupThreshold ?? DEFAULT_BROAD_GROUP_THRESHOLD,
  };
}
