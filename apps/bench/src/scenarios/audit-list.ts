import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDb } from "@posture/db/testing";
import { recordAudit } from "@posture/platform";
import { startBareChild, startGatewayChild, GATEWAY_ENV_NOTE } from "../lib/gateway";
import { compareToBaseline } from "../lib/compare";
import { measure } from "../lib/load";
import { seedOwnerWithKey } from "../lib/seed";
import type { TChild } from "../lib/child";
import type { TScenario } from "../types";

const PATH = "/api/audit?limit=50";
const AUDIT_ENTRIES = 250;

/**
 * GET /api/audit?limit=50 with an API key through the whole stack (credential lookup, CSRF,
 * Redis rate limit, tRPC guards, PostgreSQL), against a bare Express route serving the same body.
 */
export const auditList: TScenario = {
  name: "audit-list",
  title: `GET ${PATH} with an API key, ${AUDIT_ENTRIES} audit entries`,
  run: async (settings) => {
    const db = await createTestDb();
    const children: TChild[] = [];
    const dir = await mkdtemp(join(tmpdir(), "posture-bench-"));
    try {
      const owner = await seedOwnerWithKey(db.db, "business");
      for (let i = 0; i < AUDIT_ENTRIES; i++) {
        await recordAudit(db.db, {
          orgId: owner.orgId,
          action: i % 2 === 0 ? "SCAN_TRIGGERED" : "CONNECTOR_CONNECTED",
          target: `connector-${i % 7}`,
          userId: owner.userId,
          userEmail: owner.userEmail,
        });
      }

      const gateway = await startGatewayChild(settings, db.url);
      children.push(gateway);
      const headers = { authorization: `Bearer ${owner.key}` };
      const probe = await fetch(`${gateway.url}${PATH}`, { headers });
      const text = await probe.text();
      if (probe.status === 404) return { kind: "skipped", reason: "GET /api/audit is not in the router yet" };
      if (probe.status !== 200) throw new Error(`GET ${PATH} answered ${probe.status}: ${text}`);
      const entries = (JSON.parse(text) as { entries?: unknown[] }).entries?.length ?? 0;

      const bodyFile = join(dir, "audit.json");
      await writeFile(bodyFile, text);
      const bare = await startBareChild("/api/audit", bodyFile);
      children.push(bare);

      const stackResult = await measure("gateway (whole stack)", gateway, { path: PATH, headers }, settings);
      const bareResult = await measure("bare Express 5", bare, { path: PATH, headers }, settings);
      return {
        kind: "done",
        measurements: [stackResult, bareResult],
        checks: compareToBaseline(stackResult, bareResult, { minRatio: 0.6, maxP99Ms: 8 }),
        notes: [
          GATEWAY_ENV_NOTE,
          `response: ${entries} entries, ${Buffer.byteLength(text)} bytes; bare serves the same JSON from memory`,
        ],
      };
    } finally {
      await Promise.all(children.map((c) => c.stop()));
      await rm(dir, { recursive: true, force: true });
      await db.drop();
    }
  },
};
