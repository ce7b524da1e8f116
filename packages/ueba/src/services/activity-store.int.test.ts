import { activityEvents, connectors, organizations } from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIRST_INGEST_DAYS, ingestSince, storeActivity, type TActivityInput } from "./activity-store";

// The activity log is append-only and deduplicated by (connector, source id): a first ingestion
// takes a plain-insert fast path, and everything after it, or a first one that meets a repeated
// id, must still store each event exactly once.

let db: TestDb;
let orgId: string;

beforeAll(async () => {
  db = await createTestDb();
  const [org] = await db.db
    .insert(organizations)
    .values({ name: "Activity Co", plan: "business" })
    .returning();
  orgId = org?.id ?? "";
});
afterAll(async () => {
  await db?.drop();
});

async function newConnector(): Promise<string> {
  const [c] = await db.db
    .insert(connectors)
    .values({ orgId, type: "google_workspace", displayName: "Drive", mode: "demo" })
    .returning();
  return c?.id ?? "";
}

async function* stream(events: TActivityInput[]): AsyncIterable<TActivityInput> {
  yield* events;
}

const event = (id: string, at: string, actorEmail = "Ana@Example.com"): TActivityInput => ({
  id,
  at,
  actorEmail,
  type: "file_access",
  resourceId: `file-${id}`,
});

const stored = (connectorId: string) =>
  db.db
    .select({
      externalId: activityEvents.externalId,
      principal: activityEvents.principal,
      at: activityEvents.at,
    })
    .from(activityEvents)
    .where(eq(activityEvents.connectorId, connectorId))
    .orderBy(asc(activityEvents.externalId));

describe("storeActivity", () => {
  it("a first ingestion starts at the horizon and stores every valid event once", async () => {
    const connectorId = await newConnector();
    const now = new Date("2026-11-20T12:00:00Z");
    const since = await ingestSince(db.db, { orgId, connectorId, now });
    expect(since).toEqual({
      since: new Date(now.getTime() - FIRST_INGEST_DAYS * 86_400_000),
      first: true,
    });
    const result = await storeActivity(db.db, {
      orgId,
      connectorId,
      first: since.first,
      events: stream([
        event("e1", "2026-11-19T10:00:00Z"),
        event("e2", "2026-11-18T09:30:00.250Z"),
        event("bad-time", "not a time"),
        event("no-actor", "2026-11-18T09:30:00Z", ""),
      ]),
    });
    expect(result).toEqual({ inserted: 2, earliest: new Date("2026-11-18T09:30:00.250Z") });
    expect(await stored(connectorId)).toEqual([
      { externalId: "e1", principal: "ana@example.com", at: new Date("2026-11-19T10:00:00Z") },
      { externalId: "e2", principal: "ana@example.com", at: new Date("2026-11-18T09:30:00.250Z") },
    ]);
    // The next ingestion re-reads a day of overlap before the last event, deduplicated.
    expect(await ingestSince(db.db, { orgId, connectorId, now })).toEqual({
      since: new Date("2026-11-18T10:00:00Z"),
      first: false,
    });
  });

  it("a source repeating ids in its first ingestion still stores each event once", async () => {
    const connectorId = await newConnector();
    const repeated = [event("a", "2026-11-19T10:00:00Z"), event("a", "2026-11-19T10:00:00Z")];
    const result = await storeActivity(db.db, {
      orgId,
      connectorId,
      first: true,
      events: stream([...repeated, event("b", "2026-11-19T11:00:00Z")]),
    });
    expect(result.inserted).toBe(2);
    expect((await stored(connectorId)).map((r) => r.externalId)).toEqual(["a", "b"]);
  });

  it("a re-read window adds only what is new, even when wrongly told it is the first", async () => {
    const connectorId = await newConnector();
    const window = [event("x", "2026-11-19T10:00:00Z"), event("y", "2026-11-19T11:00:00Z")];
    await storeActivity(db.db, { orgId, connectorId, first: true, events: stream(window) });
    // Two ingestions of one connector at once both see "nothing stored yet".
    const again = await storeActivity(db.db, {
      orgId,
      connectorId,
      first: true,
      events: stream([...window, event("z", "2026-11-19T12:00:00Z")]),
    });
    expect(again).toEqual({ inserted: 1, earliest: new Date("2026-11-19T12:00:00Z") });
    const deduplicated = await storeActivity(db.db, { orgId, connectorId, events: stream(window) });
    expect(deduplicated).toEqual({ inserted: 0, earliest: null });
    expect((await stored(connectorId)).map((r) => r.externalId)).toEqual(["x", "y", "z"]);
  });
});
