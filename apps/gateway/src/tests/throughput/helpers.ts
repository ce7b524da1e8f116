import { metrics } from "@posture/platform";

/** credential_checks_total by source (cache / lookup), summed over outcomes, in this process. */
export async function credentialChecks(): Promise<{ cache: number; lookup: number }> {
  const { values } = await metrics.credentialChecks.get();
  const sum = (source: string) =>
    values.filter((v) => v.labels.source === source).reduce((n, v) => n + v.value, 0);
  return { cache: sum("cache"), lookup: sum("lookup") };
}
