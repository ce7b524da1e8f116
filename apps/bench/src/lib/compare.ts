import type { TCheck, TMeasurement } from "../types";

export type TTargets = { minRatio: number; maxP99Ms: number };

/** The stack against the bare baseline: throughput ratio and the stack's tail latency. */
export function compareToBaseline(stack: TMeasurement, bare: TMeasurement, targets: TTargets): TCheck[] {
  const ratio = bare.requestsPerSec > 0 ? stack.requestsPerSec / bare.requestsPerSec : 0;
  return [
    {
      label: `throughput ratio stack/bare >= ${targets.minRatio}`,
      ok: ratio >= targets.minRatio,
      detail: ratio.toFixed(3),
    },
    {
      label: `stack p99 <= ${targets.maxP99Ms} ms`,
      ok: stack.p99Ms <= targets.maxP99Ms,
      detail: `${stack.p99Ms} ms`,
    },
    {
      label: "every response 2xx, no errors",
      ok: stack.non2xx + stack.errors + bare.non2xx + bare.errors === 0,
      detail: `stack non2xx=${stack.non2xx} errors=${stack.errors}; bare non2xx=${bare.non2xx} errors=${bare.errors}`,
    },
  ];
}
