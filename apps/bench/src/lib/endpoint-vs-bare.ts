import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TBenchSettings, TScenarioOutcome } from "../types";
import type { TChild } from "./child";
import { compareToBaseline, type TTargets } from "./compare";
import { GATEWAY_ENV_NOTE, startBareChild, startGatewayChild } from "./gateway";
import { measure } from "./load";

/**
 * One GET through the whole stack (a gateway child over `databaseUrl`) against a bare Express 5
 * child serving the very same JSON body from memory, measured alike.
 */
export async function endpointVsBare(
  settings: TBenchSettings,
  o: {
    databaseUrl: string;
    path: string;
    key: string;
    targets: TTargets;
    describe: (body: string) => string;
  },
): Promise<TScenarioOutcome> {
  const children: TChild[] = [];
  const dir = await mkdtemp(join(tmpdir(), "posture-bench-"));
  try {
    const gateway = await startGatewayChild(settings, o.databaseUrl);
    children.push(gateway);
    const headers = { authorization: `Bearer ${o.key}` };
    const probe = await fetch(`${gateway.url}${o.path}`, { headers });
    const text = await probe.text();
    if (probe.status === 404) return { kind: "skipped", reason: `GET ${o.path} is not in the router yet` };
    if (probe.status !== 200) throw new Error(`GET ${o.path} answered ${probe.status}: ${text}`);

    const bodyFile = join(dir, "body.json");
    await writeFile(bodyFile, text);
    const bare = await startBareChild(new URL(o.path, "http://x").pathname, bodyFile);
    children.push(bare);

    const stack = await measure("gateway (whole stack)", gateway, { path: o.path, headers }, settings);
    const baseline = await measure("bare Express 5", bare, { path: o.path, headers }, settings);
    // The same GET revalidated with the tag it was given: 304, no body, not charged (issue 34).
    const etag = probe.headers.get("etag");
    const conditional = etag
      ? await measure(
          "gateway, If-None-Match (304)",
          gateway,
          { path: o.path, headers: { ...headers, "if-none-match": etag }, expectStatus: 304 },
          settings,
        )
      : null;
    const ratio304 =
      conditional && baseline.requestsPerSec > 0 ? conditional.requestsPerSec / baseline.requestsPerSec : 0;
    return {
      kind: "done",
      measurements: conditional ? [stack, conditional, baseline] : [stack, baseline],
      checks: [
        ...compareToBaseline(stack, baseline, o.targets),
        {
          label: "conditional GET: every answer 304, ratio 304/bare >= 0.8",
          ok: conditional !== null && conditional.non2xx + conditional.errors === 0 && ratio304 >= 0.8,
          detail: conditional
            ? `${ratio304.toFixed(3)}; not 304=${conditional.non2xx} errors=${conditional.errors}`
            : "no ETag on the probe",
        },
      ],
      notes: [
        GATEWAY_ENV_NOTE,
        `${o.describe(text)}, ${Buffer.byteLength(text)} bytes; bare serves the same JSON from memory`,
        "the 304 run sends the probe's ETag as If-None-Match; a 304 is not charged to the rate limit",
      ],
    };
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    await rm(dir, { recursive: true, force: true });
  }
}
