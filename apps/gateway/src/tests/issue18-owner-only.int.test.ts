import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeGoogle, type TFakeGoogle } from "@posture/fakes/google";
import { buildGoogleFixture, generateServiceAccount } from "@posture/fakes/google-fixture";
import { startTestGateway, type TTestGateway } from "../testing";
import { body, client, scannedOrg } from "./workspace/harness";

// Issue 18, deliver 1 (audit): a file only its owner can see reaches the store and the inventory
// through domain-wide delegation, on the real PostgreSQL; the demo tenant has such files too.
type TFileRow = {
  id: string;
  name: string;
  ownerEmail: string;
  sharing: string;
  label: string | null;
  sharedDriveId: string | null;
  connectorId: string;
};
type TPage = { rows: TFileRow[]; total: number };

const fixture = buildGoogleFixture();
const account = generateServiceAccount("admin@acme.test");
let gw: TTestGateway;
let google: TFakeGoogle;

beforeAll(async () => {
  google = await startFakeGoogle({
    fixture,
    serviceAccounts: [{ clientEmail: account.credentials.clientEmail, publicKey: account.publicKey }],
  });
  gw = await startTestGateway({ sourceEndpoints: { google: google.endpoints } });
});
afterAll(async () => {
  await gw.close();
  await google.close();
});

describe("a file only its owner can see", () => {
  it("is found by a real-mode Google scan and shown in the inventory as private", async () => {
    // The fixture's file: one permission, its owner's, in Alice's My Drive.
    const source = fixture.files.find((f) => f.id === "f-private");
    expect(source?.permissions).toHaveLength(1);
    expect(source?.owners).toEqual([{ emailAddress: "alice@acme.test" }]);

    const a = await gw.createActor({ plan: "business" });
    const c = client(gw, a.cookie);
    const created = await c.post("/api/connectors", {
      type: "google_workspace",
      displayName: "Acme",
      mode: "real",
      credentials: {
        type: "service_account",
        project_id: "posture-test",
        client_email: account.credentials.clientEmail,
        private_key: account.credentials.privateKey,
        subject: "admin@acme.test",
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const scan = await c.post(`/api/connectors/${(created.body as { id: string }).id}/sync`, undefined);
    expect(scan.body).toMatchObject({ status: "COMPLETE" });

    // Read as Alice (impersonated), not as the admin the connector was set up with.
    expect(google.grants.some((g) => g.subject === "alice@acme.test")).toBe(true);
    const page = body<TPage>(
      await c.get(`/api/inventory?type=files&search=${encodeURIComponent("Salary review")}`),
    );
    expect(page.rows).toHaveLength(1);
    expect(page.rows[0]).toMatchObject({
      name: "Salary review.xlsx",
      ownerEmail: "alice@acme.test",
      sharing: "private",
      sharedDriveId: null,
      label: "Confidential",
    });
  });

  it("exists in the demo tenant: My Drive files shared with no one but their owner", async () => {
    const org = await scannedOrg(gw, { fileCount: 400 });
    const rows: TFileRow[] = [];
    for (let offset = 0; offset < 400; offset += 200)
      rows.push(...body<TPage>(await org.c.get(`/api/inventory?type=files&limit=200&offset=${offset}`)).rows);
    expect(rows).toHaveLength(400);
    const ownerOnly = rows.filter((r) => r.sharing === "private" && r.sharedDriveId === null);
    expect(ownerOnly.length).toBeGreaterThan(40);
    // Their owners are many users, not one admin.
    expect(new Set(ownerOnly.map((r) => r.ownerEmail)).size).toBeGreaterThan(5);
  });
});
