import { and, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  createGoogleWorkspaceAdapter,
  createMicrosoft365Adapter,
  type TSourceAdapter,
} from "@posture/connectors";
import { startFakeGoogle, type TFakeGroup } from "@posture/fakes/google";
import { buildGoogleFixture, generateServiceAccount } from "@posture/fakes/google-fixture";
import { startFakeGraph } from "@posture/fakes/graph";
import { buildGraphFixture, GRAPH_TENANT_ID } from "@posture/fakes/graph-fixture";
import { withGroupGrants } from "@posture/fakes/graph-groups-fixture";
import { connectors, findings, organizations, scans, workspaceGroups } from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { runScanJob } from "./index";
import { scanOnlyDeps } from "./testing/scan-deps";

// Issue 30: a real-mode connector's scan reads the directory's groups through the real adapter
// (against the vendors' fakes) and flags a file granted to a group at or above the organization's
// broad-group threshold, and not one granted to a smaller group.

let db: TestDb;
const closers: Array<() => Promise<void>> = [];
beforeAll(async () => {
  db = await createTestDb();
});
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});
afterAll(() => db?.drop());

/** Both tenants have fewer than ten people, so the threshold applies as set (not half the tenant). */
const THRESHOLD = 5;

async function scanWith(type: "google_workspace" | "microsoft_365", adapter: TSourceAdapter) {
  const [org] = await db.db
    .insert(organizations)
    .values({ name: `Groups ${type}`, plan: "business", broadGroupThreshold: THRESHOLD })
    .returning();
  if (!org) throw new Error("no org");
  const [connector] = await db.db
    .insert(connectors)
    .values({ orgId: org.id, type, displayName: type, mode: "real" })
    .returning();
  if (!connector) throw new Error("no connector");
  const [scan] = await db.db
    .insert(scans)
    .values({ orgId: org.id, connectorId: connector.id, connectorName: type, trigger: "manual" })
    .returning();
  if (!scan) throw new Error("no scan");
  const deps = scanOnlyDeps(db.db, { adapterFor: () => adapter });
  const result = await runScanJob(deps, scan.id, 1);
  await deps.jobs.close();
  expect(result.status).toBe("COMPLETE");
  const broad = await db.db
    .select({ resourceId: findings.resourceId, details: findings.details })
    .from(findings)
    .where(and(eq(findings.connectorId, connector.id), eq(findings.ruleId, "broad_group_grant")));
  const groups = await db.db
    .select({ email: workspaceGroups.email, memberCount: workspaceGroups.memberCount })
    .from(workspaceGroups)
    .where(eq(workspaceGroups.connectorId, connector.id));
  return {
    broad: broad.map((f) => f.resourceId).sort(),
    groups: Object.fromEntries(groups.map((g) => [g.email, g.memberCount])),
  };
}

const user = (email: string) => ({ email, type: "USER", status: "ACTIVE" });

describe("a real-mode scan against the vendors' fakes", () => {
  it("Google: flags the file granted to a nested group of 7, not the one granted to a group of 3", async () => {
    const account = generateServiceAccount("admin@acme.test");
    const fixture = buildGoogleFixture();
    const groups: TFakeGroup[] = [
      // Two direct users and a group of five: directMembersCount says 2, the group reaches 7.
      {
        id: "g-all",
        email: "all-staff@acme.test",
        name: "All Staff",
        members: [
          user("admin@acme.test"),
          user("alice@acme.test"),
          { email: "eng@acme.test", type: "GROUP" },
        ],
      },
      {
        id: "g-eng",
        email: "eng@acme.test",
        name: "Engineering",
        members: ["e1", "e2", "e3", "e4", "e5"].map((n) => user(`${n}@acme.test`)),
      },
      {
        id: "g-sales",
        email: "sales@acme.test",
        name: "Sales",
        members: [user("s1@acme.test"), user("s2@acme.test"), user("dave@acme.test")],
      },
    ];
    const granted = (id: string, name: string, group: string) => ({
      id,
      name,
      mimeType: "text/plain",
      owners: [{ emailAddress: "alice@acme.test" }],
      modifiedTime: "2025-04-20T12:00:00.000Z",
      size: "10",
      permissions: [
        {
          id: `p-${id}-owner`,
          type: "user" as const,
          role: "owner" as const,
          emailAddress: "alice@acme.test",
        },
        { id: `p-${id}-group`, type: "group" as const, role: "reader" as const, emailAddress: group },
      ],
    });
    fixture.files.push(
      granted("f-all-staff", "All staff handbook.txt", "all-staff@acme.test"),
      granted("f-sales", "Sales pipeline.txt", "sales@acme.test"),
    );
    const fake = await startFakeGoogle({
      fixture: { ...fixture, groups },
      serviceAccounts: [{ clientEmail: account.credentials.clientEmail, publicKey: account.publicKey }],
    });
    closers.push(fake.close);
    const adapter = createGoogleWorkspaceAdapter({
      credentials: account.credentials,
      endpoints: fake.endpoints,
    });
    const read = await scanWith("google_workspace", adapter);
    expect(read.groups).toEqual({ "all-staff@acme.test": 7, "eng@acme.test": 5, "sales@acme.test": 3 });
    expect(read.broad).toEqual(["f-all-staff"]);
  });

  it("Microsoft: flags the file granted to All Company (10 users), not the one granted to Sales (4)", async () => {
    const fake = await startFakeGraph({
      fixture: withGroupGrants(buildGraphFixture()),
      clientId: "aaaaaaaa-0000-0000-0000-000000000001",
      clientSecret: "s3cret~value",
    });
    closers.push(fake.close);
    const adapter = createMicrosoft365Adapter({
      credentials: {
        tenantId: GRAPH_TENANT_ID,
        clientId: "aaaaaaaa-0000-0000-0000-000000000001",
        clientSecret: "s3cret~value",
      },
      endpoints: { graphBaseUrl: fake.url, loginBaseUrl: fake.url, manageBaseUrl: fake.url },
    });
    const read = await scanWith("microsoft_365", adapter);
    expect(read.groups).toMatchObject({
      "allcompany@contoso.test": 10,
      "engineering@contoso.test": 6,
      "sales@contoso.test": 4,
    });
    expect(read.broad).toEqual(["a-roadmap"]);
  });
});
