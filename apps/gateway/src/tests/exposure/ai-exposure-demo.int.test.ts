import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "@posture/db";
import { useTestGateway } from "../../testing";
import { freshIp } from "../helpers";

// The demo connectors of both suites, scanned over HTTP: licensed assistant users come from the
// sources, and /api/exposure/ai shows Copilot and Gemini with what their users can open.

const gw = useTestGateway();
let owner: Awaited<ReturnType<typeof gw.createActor>>;
const call = (method: "GET" | "POST", path: string, body?: unknown) =>
  gw.request(method, path, { cookie: owner.cookie, ip: freshIp(), body });

beforeAll(async () => {
  owner = await gw.createActor({ plan: "business", role: "OWNER" });
  for (const type of ["google_workspace", "microsoft_365"]) {
    const created = await call("POST", "/api/connectors", {
      type,
      displayName: type,
      mode: "demo",
      config: { fileCount: 300 },
    });
    expect(created.status).toBe(201);
    const synced = await call("POST", `/api/connectors/${(created.body as { id: string }).id}/sync`);
    expect((synced.body as { status: string }).status).toBe("COMPLETE");
  }
}, 120_000);

type TAssistant = {
  id: string;
  kind: string;
  users: number;
  reachableFiles: number;
  sensitiveReachableFiles: number;
};

describe("GET /api/exposure/ai on the demo tenants", () => {
  it("shows Copilot and Gemini with the sources' licensed users and their reach", async () => {
    const res = await call("GET", "/api/exposure/ai");
    expect(res.status).toBe(200);
    const e = res.body as { assistants: TAssistant[]; summary: { files: number } };
    const licensed = await queryRows<{ a: string; n: number }>(
      gw.db.db,
      sql`SELECT a, count(*)::int AS n FROM workspace_users, unnest(assistants) a
          WHERE org_id = ${owner.orgId} AND status = 'active' GROUP BY a ORDER BY a`,
    );
    const [copilot, gemini] = ["copilot", "gemini"].map((id) => e.assistants.find((a) => a.id === id));
    expect([copilot?.users, gemini?.users]).toEqual(
      ["copilot", "gemini"].map((id) => licensed.find((l) => l.a === id)?.n),
    );
    expect(copilot?.users).toBeGreaterThan(0);
    expect(gemini?.users).toBeGreaterThan(0);
    for (const a of [copilot, gemini]) {
      // The files page agrees with the summary, and the sensitive ones with the high filter's count.
      const page = await call("GET", `/api/exposure/ai/files?assistant=${a?.id}&limit=200`);
      expect((page.body as { total: number }).total).toBe(a?.reachableFiles);
      const rows = (page.body as { rows: Array<{ sensitivity: string }> }).rows;
      if ((a?.reachableFiles ?? 0) <= 200)
        expect(rows.filter((r) => r.sensitivity === "high").length).toBe(a?.sensitiveReachableFiles);
      expect(a?.reachableFiles).toBeLessThanOrEqual(300);
    }
    expect(e.summary.files).toBe(600);
  });
});
