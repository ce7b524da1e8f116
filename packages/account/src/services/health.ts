import { iso, type TProbes } from "@posture/platform";

const PROBE_TIMEOUT_MS = 1_500;

function withTimeout(p: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("timeout")), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** Runs every probe in parallel, each bounded, so a hung dependency cannot hang the health check. */
export async function checkHealth(probes: TProbes) {
  const entries = await Promise.all(
    Object.entries(probes).map(async ([name, probe]) => {
      try {
        await withTimeout(probe(), PROBE_TIMEOUT_MS);
        return [name, "ok"] as const;
      } catch {
        return [name, "down"] as const;
      }
    }),
  );
  const checks: Record<string, "ok" | "down"> = { app: "ok", ...Object.fromEntries(entries) };
  const status = Object.values(checks).every((c) => c === "ok") ? ("ok" as const) : ("degraded" as const);
  return { status, time: iso(new Date()), checks };
}
