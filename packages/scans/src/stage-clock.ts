// Where a scan's time went (issue 35): each stage's milliseconds, measured as the stages end, so
// the "scan finished" log tells an operator whether the source, the rules and store, the commit
// or the findings' persistence took the time. A stage marked twice (an incremental read that fell
// back to a full one) adds up.

import type { TScanTiming } from "@posture/db";

export type TStageClock = {
  /** Ends the stage that ran since the previous mark (or since the clock started). */
  mark: (stage: string) => void;
  /** The stages' milliseconds, in the order they first ended, and the total. */
  read: () => Record<string, number>;
  /** The same, as the scan's row keeps it: the stages in order, and their total. */
  timing: (queuedMs: number) => TScanTiming;
};

export function stageClock(now: () => number = () => performance.now()): TStageClock {
  const started = now();
  let last = started;
  const stages = new Map<string, number>();
  return {
    mark(stage) {
      const t = now();
      stages.set(stage, (stages.get(stage) ?? 0) + (t - last));
      last = t;
    },
    read() {
      const out: Record<string, number> = {};
      for (const [stage, ms] of stages) out[stage] = Math.round(ms);
      out.total = Math.round(last - started);
      return out;
    },
    timing(queuedMs) {
      return {
        queuedMs: Math.max(0, Math.round(queuedMs)),
        totalMs: Math.round(last - started),
        stages: [...stages].map(([stage, ms]) => ({ stage, ms: Math.round(ms) })),
      };
    },
  };
}
