import { createGoogleWorkspaceAdapter, createMicrosoft365Adapter } from "@posture/connectors";
import { startFakeGoogle } from "@posture/fakes/google";
import { buildGoogleFixture } from "@posture/fakes/google-fixture";
import { startFakeGraph } from "@posture/fakes/graph";
import { buildGraphFixture } from "@posture/fakes/graph-fixture";
import {
  azureAdRecord,
  blobsOf,
  sharePointRecord,
  startFakeO365Activity,
  type TO365Blob,
} from "@posture/fakes/o365";
import { activityEvents, anomalies, connectors, organizations } from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { createInProcessQueue } from "@posture/jobs";
import { and, count, eq, like } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { storeActivity, type TActivityInput } from "./activity-store";
import { getBaseline } from "./behaviour-views";
import { refreshBehaviour } from "./refresh";
import { ingestConnectorActivity } from "./scan-activity";

// From a source's own audit data to anomalies: Microsoft 365 audit content (the Office 365
// Management Activity API fake) produces each of the five kinds, Google Drive delete events a
// mass deletion, after ingestion and a refresh, on the real PostgreSQL.

const CLIENT_ID = "aaaaaaaa-0000-0000-0000-000000000001";
const SECRET = "s3cret~value";
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const TENANT = "11111111-2222-3333-4444-555555555555";

let db: TestDb;
const servers: Array<{ close: () => Promise<void> }> = [];
const deps = { jobs: createInProcessQueue({}), publicUrl: "http://localhost" };

beforeAll(async () => {
  db = await createTestDb();
});
afterEach(async () => {
  while (servers.length) await servers.pop()?.close();
});
afterAll(async () => {
  await db?.drop();
});

async function newSource(type: "google_workspace" | "microsoft_365") {
  const [org] = await db.db
    .insert(organizations)
    .values({ name: `${type} Co`, plan: "business" })
    .returning();
  const [c] = await db.db
    .insert(connectors)
    .values({ orgId: org?.id ?? "", type, displayName: type, mode: "real" })
    .returning();
  return { orgId: org?.id ?? "", connectorId: c?.id ?? "" };
}

/**
 * Twelve quiet weeks before the scan, as earlier scans stored them: each person opens a few
 * files, signs in, shares once in a while and bins a file now and then. The sleeper stops 70
 * days ago. Nothing in the last three days, so this scan's window starts there.
 */
function history(people: string[], sleeper: string, now: number): TActivityInput[] {
  const out: TActivityInput[] = [];
  for (const [p, person] of people.entries()) {
    for (let day = 84; day >= 3; day--) {
      if (person === sleeper && day < 70) continue;
      const at = (k: number) => new Date(now - day * DAY + (p * 13 + k) * 60_000).toISOString();
      const base = { actorEmail: person };
      out.push({ ...base, id: `h-${p}-${day}-login`, at: at(0), type: "login" });
      for (let k = 1; k <= 1 + ((day + p) % 3); k++)
        out.push({
          ...base,
          id: `h-${p}-${day}-view-${k}`,
          at: at(k),
          type: "file_access",
          resourceId: `f${k}`,
        });
      if ((day + p) % 5 === 0)
        out.push({
          ...base,
          id: `h-${p}-${day}-share`,
          at: at(9),
          type: "share_external",
          target: "x@partner.example",
        });
      if ((day + p) % 9 === 0)
        out.push({ ...base, id: `h-${p}-${day}-del`, at: at(10), type: "file_delete" });
      if ((day + p) % 40 === 0)
        out.push({ ...base, id: `h-${p}-${day}-grant`, at: at(11), type: "oauth_grant" });
    }
  }
  return out;
}

async function* stream<T>(items: T[]): AsyncIterable<T> {
  yield* items;
}

async function anomalyKinds(orgId: string) {
  const rows = await db.db.select().from(anomalies).where(eq(anomalies.orgId, orgId));
  return rows.map((r) => `${r.principal}:${r.type}`).sort();
}

describe("Microsoft 365 audit content through ingestion and refresh", { timeout: 120_000 }, () => {
  it("produces sharing_spike, bulk_access, oauth_burst, dormant_reactivation and mass_deletion", async () => {
    const now = Date.now();
    const ago = (ms: number) => new Date(now - ms);
    const people = [
      "sharer@contoso.test",
      "reader@contoso.test",
      "granter@contoso.test",
      "deleter@contoso.test",
      "sleeper@contoso.test",
      ...Array.from({ length: 6 }, (_, i) => `steady${i}@contoso.test`),
    ];
    const { orgId, connectorId } = await newSource("microsoft_365");
    await storeActivity(db.db, {
      orgId,
      connectorId,
      first: true,
      events: stream(history(people, "sleeper@contoso.test", now)),
    });

    // This scan's audit content: one story each, plus an ordinary day for everyone else.
    const sp = [
      ...Array.from({ length: 40 }, (_, k) =>
        sharePointRecord({
          id: `share-${k}`,
          at: ago(30 * HOUR - k * 60_000),
          user: "sharer@contoso.test",
          operation: k % 2 ? "SharingSet" : "SharingInvitationCreated",
          target: `guest${k}@outside${k % 7}.example`,
          targetType: "Guest",
          file: `deal-${k}.docx`,
        }),
      ),
      ...Array.from({ length: 300 }, (_, k) =>
        sharePointRecord({
          id: `read-${k}`,
          at: ago(20 * HOUR - k * 10_000),
          user: "reader@contoso.test",
          operation: k % 4 ? "FileAccessed" : "FileDownloaded",
          file: `doc-${k}.pdf`,
        }),
      ),
      ...Array.from({ length: 120 }, (_, k) =>
        sharePointRecord({
          id: `del-${k}`,
          at: ago(10 * HOUR - k * 20_000),
          user: "deleter@contoso.test",
          operation:
            ["FileRecycled", "FileDeleted", "FileDeletedFirstStageRecycleBin"][k % 3] ?? "FileDeleted",
          file: `old-${k}.xlsx`,
        }),
      ),
      ...people
        .slice(5)
        .map((p, i) =>
          sharePointRecord({ id: `day-${i}`, at: ago(40 * HOUR), user: p, operation: "FileAccessed" }),
        ),
    ];
    const aad = [
      ...Array.from({ length: 8 }, (_, k) =>
        azureAdRecord({
          id: `consent-${k}`,
          at: ago(6 * HOUR - k * 120_000),
          user: "granter@contoso.test",
          operation: "Consent to application.",
          appId: `0f6e1b5c-7c3a-4c55-9d7e-2a1b3c4d5e${String(k).padStart(2, "0")}`,
        }),
      ),
      azureAdRecord({
        id: "back",
        at: ago(5 * HOUR),
        user: "sleeper@contoso.test",
        operation: "UserLoggedIn",
      }),
    ];
    const blobs: TO365Blob[] = [
      ...blobsOf("Audit.SharePoint", sp, { perBlob: 60 }),
      ...blobsOf("Audit.AzureActiveDirectory", aad, { perBlob: 3 }),
    ];
    // The feed repeats a blob's records in a later blob: stored once.
    const first = blobs[0];
    if (first) blobs.push({ ...first, contentId: "repeat", created: ago(HOUR).toISOString() });

    const graph = await startFakeGraph({
      fixture: buildGraphFixture(),
      clientId: CLIENT_ID,
      clientSecret: SECRET,
    });
    servers.push(graph);
    const o365 = await startFakeO365Activity({
      fixture: { tenantId: TENANT, blobs },
      clientId: CLIENT_ID,
      clientSecret: SECRET,
      graphLoginUrl: graph.url,
      pageSize: 4,
    });
    servers.push(o365);
    const adapter = createMicrosoft365Adapter({
      credentials: { tenantId: TENANT, clientId: CLIENT_ID, clientSecret: SECRET },
      config: { internalDomains: ["contoso.test"] },
      endpoints: { graphBaseUrl: graph.url, loginBaseUrl: o365.url, manageBaseUrl: o365.url },
    });

    const ingested = await ingestConnectorActivity(db.db, {
      orgId,
      connectorId,
      activity: adapter.activity,
      now: new Date(now),
    });
    expect(ingested.inserted).toBeGreaterThan(0);
    // The repeated blob's records were stored once.
    const shares = await db.db
      .select({ n: count() })
      .from(activityEvents)
      .where(and(eq(activityEvents.connectorId, connectorId), like(activityEvents.externalId, "share-%")));
    expect(shares[0]?.n).toBe(40);

    const result = await refreshBehaviour(db.db, { orgId, now: new Date(now) }, deps);
    expect(await anomalyKinds(orgId)).toEqual([
      "deleter@contoso.test:mass_deletion",
      "granter@contoso.test:oauth_burst",
      "reader@contoso.test:bulk_access",
      "sharer@contoso.test:sharing_spike",
      "sleeper@contoso.test:dormant_reactivation",
    ]);
    expect(result.newAnomalies).toHaveLength(5);
    const deletion = (await db.db.select().from(anomalies).where(eq(anomalies.orgId, orgId))).find(
      (a) => a.type === "mass_deletion",
    );
    // The week's deletions: the burst (and at most the odd file binned earlier in the week).
    expect(deletion?.observed).toBeGreaterThanOrEqual(120);
    expect(deletion?.observed).toBeLessThanOrEqual(121);
    expect(deletion?.details).toMatchObject({ metric: "deletions" });
    // The baseline view shows the deletions learned before the burst: about one a week, floored spread.
    const baseline = await getBaseline(db.db, { orgId, userId: "deleter@contoso.test" });
    expect(baseline.source).toBe("self");
    expect(baseline.baseline.deletionCount).toBeLessThanOrEqual(1);
    expect(baseline.spread.deletionCount).toBe(3);
  });
});

describe("Google Drive delete events through ingestion and refresh", { timeout: 120_000 }, () => {
  it("a burst of deleted files is a mass deletion; a tidy-up or an emptied bin is not", async () => {
    const now = Date.now();
    const ago = (ms: number) => new Date(now - ms).toISOString();
    const people = [
      "wiper@acme.test",
      "tidy@acme.test",
      ...Array.from({ length: 6 }, (_, i) => `p${i}@acme.test`),
    ];
    const { orgId, connectorId } = await newSource("google_workspace");
    await storeActivity(db.db, { orgId, connectorId, first: true, events: stream(history(people, "", now)) });

    const drive = (id: string, at: string, email: string, name: string, doc = `doc-${id}`) => ({
      kind: "admin#reports#activity",
      id: { time: at, uniqueQualifier: id, applicationName: "drive", customerId: "C0abc" },
      actor: { email, profileId: `profile-${email}` },
      events: [
        {
          type: name === "trash" ? "trash" : "delete",
          name,
          parameters: [{ name: "doc_id", value: doc }],
        },
      ],
    });
    const fixture = buildGoogleFixture();
    fixture.activities = {
      drive: [
        ...Array.from({ length: 90 }, (_, k) =>
          drive(`w${k}`, ago(8 * HOUR - k * 30_000), "wiper@acme.test", k % 3 ? "trash" : "delete"),
        ),
        // Thirty files binned, then the bin emptied: 60 events, 30 files, under the rule's minimum.
        ...Array.from({ length: 60 }, (_, k) =>
          drive(
            `b${k}`,
            ago(7 * HOUR - k * 30_000),
            "purger@acme.test",
            k < 30 ? "trash" : "delete",
            `bin-${k % 30}`,
          ),
        ),
        // Under the rule's minimum: a tidy-up, not an incident.
        ...Array.from({ length: 12 }, (_, k) =>
          drive(`t${k}`, ago(9 * HOUR - k * 60_000), "tidy@acme.test", "trash"),
        ),
      ],
      token: [],
      login: [],
    };
    const google = await startFakeGoogle({ fixture, accessToken: "ya29.test-token" });
    servers.push(google);
    const adapter = createGoogleWorkspaceAdapter({
      credentials: { accessToken: "ya29.test-token" },
      endpoints: { driveBaseUrl: google.url, adminBaseUrl: google.url, tokenUrl: google.tokenUrl },
    });
    await ingestConnectorActivity(db.db, {
      orgId,
      connectorId,
      activity: adapter.activity,
      now: new Date(now),
    });
    await refreshBehaviour(db.db, { orgId, now: new Date(now) }, deps);
    expect(await anomalyKinds(orgId)).toEqual(["wiper@acme.test:mass_deletion"]);
    // `at`: when the 50th different file went (the burst's files are 30 s apart from 8 hours ago).
    const [wipe] = await db.db.select().from(anomalies).where(eq(anomalies.orgId, orgId));
    expect(wipe?.observed).toBe(90);
    expect(wipe?.at.toISOString()).toBe(new Date(now - 8 * HOUR + 49 * 30_000).toISOString());
  });
});
