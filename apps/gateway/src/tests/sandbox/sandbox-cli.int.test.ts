import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { organizations } from "@posture/db";
import { useTestGateway } from "../../testing";
import { errorCode } from "../helpers";
import { call, settled, startScenario } from "./harness";

// `pnpm cli org:create … --sandbox` makes a sandbox organization; its first scenario connects a
// demo source on first use and scans it in full before the change, so the scenario's own scan is
// the incremental one a change feed would trigger.

// What `pnpm cli` runs: the CLI's bundle on plain Node, built (when stale) by the integration
// project's global set-up (tooling/test/app-bundles.mjs).
const CLI = fileURLToPath(new URL("../../../../cli/dist/main.js", import.meta.url));
const ENCRYPTION_KEY = randomBytes(32).toString("hex");

const gw = useTestGateway({ env: { ENCRYPTION_KEY } });

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const { DATABASE_URL: _db, DATA_DIR: _dir, ...inherited } = process.env;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--enable-source-maps", CLI, ...args, "--json"],
      { env: { ...inherited, DATABASE_URL: gw.db.url, ENCRYPTION_KEY }, timeout: 60_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

describe("a sandbox made by the operator's command line", () => {
  it("is flagged, refuses real sources, and connects a demo source on its first scenario", async () => {
    const run = await cli(["org:create", "--name", "CLI Sandbox", "--plan", "business", "--sandbox"]);
    expect(run.code, run.stderr).toBe(0);
    const org = JSON.parse(run.stdout) as { id: string; name: string; plan: string; isSandbox: boolean };
    expect(org).toMatchObject({ name: "CLI Sandbox", plan: "business", isSandbox: true });
    const [row] = await gw.db.db
      .select({ isSandbox: organizations.isSandbox })
      .from(organizations)
      .where(eq(organizations.id, org.id));
    expect(row?.isSandbox).toBe(true);

    const plain = await cli(["org:create", "--name", "Plain", "--plan", "business"]);
    expect(JSON.parse(plain.stdout)).not.toHaveProperty("isSandbox");

    const actor = await gw.createActor({ orgId: org.id, role: "ADMIN" });
    const real = await call(
      gw,
      "POST",
      "/api/connectors",
      { cookie: actor.cookie },
      {
        type: "microsoft_365",
        displayName: "Real",
        mode: "real",
        credentials: {},
      },
    );
    expect(real.status).toBe(409);
    expect(errorCode(real)).toBe("sandbox_demo_only");

    const started = await startScenario(gw, actor.key, "external_share_created");
    expect(started.orgId).toBe(org.id);
    const done = await settled(gw, actor.key, started.id);
    expect(done.scans.map((s) => s.kind)).toEqual(["full", "incremental"]);
    expect(done.scans[1]?.findingsNew).toBe(1);
    const connectors = await call(gw, "GET", "/api/connectors", { key: actor.key });
    expect(connectors.body).toMatchObject({ connectors: [{ id: started.connectorId, mode: "demo" }] });
    const finding = await call(gw, "GET", "/api/findings?limit=500", { key: actor.key });
    const rows =
      (finding.body as { findings?: Array<{ resourceName: string; ruleId: string }> }).findings ?? [];
    expect(rows.filter((f) => f.resourceName === done.change?.fileName).map((f) => f.ruleId)).toContain(
      "external_share",
    );
  }, 180_000);
});
