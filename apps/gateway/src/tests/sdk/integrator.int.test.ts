import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { connectors, findings } from "@posture/db";
import { startFakeGithub } from "@posture/fakes/trackers";
import { useTestGateway } from "../../testing";
import { runExample, startExample } from "./run-example";

// An integrator's programs, written only against @posture/sdk (packages/sdk/examples, shown
// verbatim in its README), run against a started service: they list findings across pages,
// open a ticket, download a report, and a receiver verifies the webhook that follows.

// The fake tracker and the receiver listen on loopback, which the outbound guard refuses unless allowed.
const gw = useTestGateway({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" } });
const cleanup: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
});

/** A port nothing listens on now: the system's choice for port 0, released at once. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const FINDINGS = 120;
const SEVERITIES = ["CRITICAL", "HIGH", "MEDIUM", "LOW"] as const;

/** An organization with FINDINGS open findings on a demo source, 30 of each severity. */
async function seedFindings(orgId: string) {
  const [c] = await gw.db.db
    .insert(connectors)
    .values({ orgId, type: "google_workspace", displayName: "Drive", mode: "demo" })
    .returning();
  if (!c) throw new Error("connector insert failed");
  await gw.db.db.insert(findings).values(
    Array.from({ length: FINDINGS }, (_, i) => {
      const severity = SEVERITIES[i % 4] ?? "LOW";
      return {
        orgId,
        connectorId: c.id,
        connectorType: "google_workspace",
        fingerprint: `fp-${i}`,
        ruleId: "public_link",
        category: "public_exposure",
        severity,
        severityRank: 4 - (i % 4),
        title: `Public link on file-${i}.xlsx`,
        resourceId: `file-${i}`,
        resourceName: `file-${i}.xlsx`,
        resourceType: "file",
      };
    }),
  );
}

describe("an integrator's program on @posture/sdk", () => {
  it(
    "lists findings across pages, opens a ticket, downloads a report, verifies a webhook",
    { timeout: 120_000 },
    async () => {
      const admin = await gw.createActor({ plan: "business" });
      await seedFindings(admin.orgId);
      const env = { SERVICE_URL: gw.url, SERVICE_API_KEY: admin.key };

      // What an administrator sets up in the settings (session-only operations): an issue
      // tracker, and a webhook subscription pointing at the integrator's receiver.
      const tracker = await startFakeGithub();
      cleanup.push(() => tracker.close());
      const put = await gw.request("PUT", "/api/integrations/ticketing", {
        cookie: admin.cookie,
        body: { provider: "github", baseUrl: tracker.url, project: tracker.repo, token: tracker.token },
      });
      expect(put.status, put.text).toBe(200);

      // The receiver needs the secret, which exists once the subscription does; the subscription
      // needs the receiver's port: a free one, taken from the system first.
      const port = await freePort();
      const sub = await gw.request("POST", "/api/webhooks", {
        cookie: admin.cookie,
        body: { url: `http://127.0.0.1:${port}/hooks`, events: ["incident.created"] },
      });
      expect(sub.status, sub.text).toBe(201);
      const secret = (sub.body as { secret: string }).secret;
      const receiver = startExample("webhook-receiver.ts", {
        ...env,
        PORT: String(port),
        WEBHOOK_SECRET: secret,
      });
      cleanup.push(() => receiver.stop());
      await receiver.waitForLine(/^listening on /);

      const listed = await runExample("list-findings.ts", env);
      expect(listed.stderr).toBe("");
      expect(listed.code).toBe(0);
      // 120 findings at 50 a page: three pages, every finding counted once.
      expect(listed.stdout).toContain(
        `open findings by severity: ${JSON.stringify({ CRITICAL: 30, HIGH: 30, MEDIUM: 30, LOW: 30 })}`,
      );
      expect(listed.stdout).toMatch(/finding events on the timeline: \d+/);

      const ticketed = await runExample("create-ticket.ts", env);
      expect(ticketed.stderr).toBe("");
      expect(ticketed.stdout).toMatch(/^opened github issue \S+: http\S+\n$/);
      expect(tracker.requests).toHaveLength(1);
      // Run again: the finding has its ticket, the program says so through the error's code.
      const again = await runExample("create-ticket.ts", env);
      expect(again.stdout).toMatch(/already has a ticket\n$/);
      expect(tracker.requests).toHaveLength(1);

      const dir = mkdtempSync(join(tmpdir(), "sdk-download-"));
      cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
      const downloaded = await runExample("download-report.ts", env, dir);
      expect(downloaded.stderr).toBe("");
      expect(downloaded.stdout).toMatch(/^saved \S+\.pdf \(application\/pdf\)\n$/);
      const [pdf] = readdirSync(dir);
      expect(
        readFileSync(join(dir, pdf ?? ""))
          .subarray(0, 5)
          .toString(),
      ).toBe("%PDF-");

      // The incident the download example opened reached the receiver, signed, and verified.
      const verified = await receiver.waitForLine(/^verified incident\.created (\S+) (.*)$/);
      expect(JSON.parse(verified[2] ?? "{}")).toMatchObject({ title: "Payroll sheet shared publicly" });
      expect(receiver.lines.filter((l) => l.startsWith("refused"))).toEqual([]);
    },
  );

  it("a receiver holding another secret refuses the delivery", { timeout: 60_000 }, async () => {
    const admin = await gw.createActor({ plan: "business" });
    const env = { SERVICE_URL: gw.url, SERVICE_API_KEY: admin.key };
    const receiver = startExample("webhook-receiver.ts", {
      ...env,
      PORT: "0",
      WEBHOOK_SECRET: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    });
    cleanup.push(() => receiver.stop());
    const port = (await receiver.waitForLine(/^listening on (\d+)/))[1];
    const sub = await gw.request("POST", "/api/webhooks", {
      cookie: admin.cookie,
      body: { url: `http://127.0.0.1:${port}/hooks`, events: ["incident.created"] },
    });
    expect(sub.status).toBe(201);
    const created = await gw.request("POST", "/api/incidents", {
      key: admin.key,
      body: { title: "Forged?", priority: "P3", findingIds: [] },
    });
    expect(created.status).toBe(201);
    await receiver.waitForLine(/^refused a delivery: invalid_signature$/);
    expect(receiver.lines.filter((l) => l.startsWith("verified"))).toEqual([]);
  });
});
