import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { findings } from "@posture/db";
import { useTestGateway } from "../../testing";

// From outside, over HTTP: a sized demo connector, its first (full) scan, an incremental rescan
// after the sandbox moved a revision forward, then a full rescan that finds nothing the
// incremental one missed.

type TScan = {
  scanId: string;
  status: string;
  kind: "full" | "incremental";
  fullReason: string | null;
  resources: number;
  findingsNew: number;
  findingsResolved: number;
  postureScore: number;
};

const gw = useTestGateway();

describe("incremental scans over HTTP", () => {
  it("scans a sized sandbox in full, then its changes, and a full rescan agrees", async () => {
    const a = await gw.createActor({ plan: "business" });
    const created = await gw.request("POST", "/api/connectors", {
      cookie: a.cookie,
      body: { type: "google_workspace", displayName: "Sandbox", mode: "demo", demo: { files: 3000 } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = (created.body as { id: string }).id;
    const sync = async (body?: Record<string, unknown>) => {
      const res = await gw.request("POST", `/api/connectors/${id}/sync`, {
        cookie: a.cookie,
        ...(body ? { body } : {}),
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body as TScan;
    };
    const open = async () =>
      (
        await gw.db.db
          .select({ fingerprint: findings.fingerprint, severity: findings.severity, title: findings.title })
          .from(findings)
          .where(and(eq(findings.connectorId, id), eq(findings.status, "OPEN")))
      )
        .map((f) => `${f.fingerprint} ${f.severity} ${f.title}`)
        .sort();

    const first = await sync();
    expect(first).toMatchObject({
      status: "COMPLETE",
      kind: "full",
      fullReason: "first",
      findingsResolved: 0,
    });
    expect(first.findingsNew).toBeGreaterThan(0);

    const incremental = await sync({ demo: { advance: 1 } });
    expect(incremental).toMatchObject({ status: "COMPLETE", kind: "incremental", fullReason: null });
    expect(incremental.findingsNew).toBeGreaterThan(0);
    expect(incremental.findingsResolved).toBeGreaterThan(0);
    const afterIncremental = await open();

    const full = await sync({ full: true });
    expect(full).toMatchObject({
      status: "COMPLETE",
      kind: "full",
      fullReason: "requested",
      findingsNew: 0,
      findingsResolved: 0,
      postureScore: incremental.postureScore,
      resources: incremental.resources,
    });
    expect(await open()).toEqual(afterIncremental);

    const read = await gw.request("GET", `/api/connectors/${id}/scans/${incremental.scanId}`, { key: a.key });
    expect(read.body).toMatchObject({ scanId: incremental.scanId, kind: "incremental", fullReason: null });
  });
});
