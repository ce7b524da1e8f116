import { domainSet, type TDomainSet } from "./domains";

export type TRuleEngineOptions = {
  /** Domains the tenant owns (sharing to them is internal); the first is the workspace's name. */
  internalDomains: readonly string[];
  /** Outside domains the organization vouches for: shares to them are one severity level lower. */
  trustedDomains: readonly string[];
  now: Date;
};

export type TRuleContext = {
  internal: TDomainSet;
  trusted: TDomainSet;
  nowMs: number;
  workspaceName: string;
};

export function ruleContext(opts: TRuleEngineOptions): TRuleContext {
  return {
    internal: domainSet(opts.internalDomains),
    trusted: domainSet(opts.trustedDomains),
    nowMs: opts.now.getTime(),
    workspaceName: opts.internalDomains[0] ?? "workspace",
  };
}
