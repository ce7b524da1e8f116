import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog } from "@posture/db";
import { useTestGateway } from "../../testing";
import { errorCode, freshIp } from "../helpers";

// Write access is opt-in per connector (issue 19): POST /api/connectors takes `writeAccess`
// (default on for a demo connector, off for a real one), PATCH /api/connectors/{id} changes it or
// the name, ADMIN+ over a session or an API key, audited as CONNECTOR_UPDATED.

type TConnector = { id: string; displayName: string; mode: string; writeAccess: boolean };

const gw = useTestGateway();

async function connect(cookie: string, body: Record<string, unknown> = {}): Promise<TConnector> {
  const res = await gw.request("POST", "/api/connectors", {
    cookie,
    ip: freshIp(),
    body: { type: "google_workspace", displayName: "Sandbox", mode: "demo", ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as TConnector;
}

describe("a connector's write access", () => {
  it("starts on for a demo connector unless asked otherwise", async () => {
    const { cookie } = await gw.createActor({ plan: "enterprise" });
    expect((await connect(cookie)).writeAccess).toBe(true);
    expect((await connect(cookie, { writeAccess: false })).writeAccess).toBe(false);
  });

  it("is changed by PATCH with a session or an API key, listed, and audited with before and after", async () => {
    const { cookie, key, orgId } = await gw.createActor({ plan: "enterprise" });
    const c = await connect(cookie);

    const off = await gw.request("PATCH", `/api/connectors/${c.id}`, {
      key,
      ip: freshIp(),
      body: { writeAccess: false },
    });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(off.body).toMatchObject({ id: c.id, writeAccess: false, displayName: "Sandbox" });

    const renamed = await gw.request("PATCH", `/api/connectors/${c.id}`, {
      cookie,
      ip: freshIp(),
      body: { displayName: "  Training tenant ", writeAccess: true },
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body).toMatchObject({ writeAccess: true, displayName: "Training tenant" });

    const list = await gw.request("GET", "/api/connectors", { key, ip: freshIp() });
    expect((list.body as { connectors: TConnector[] }).connectors).toEqual([
      expect.objectContaining({ id: c.id, writeAccess: true, displayName: "Training tenant" }),
    ]);

    // Nothing to change: the connector as it is, and no audit row.
    const same = await gw.request("PATCH", `/api/connectors/${c.id}`, {
      key,
      ip: freshIp(),
      body: { writeAccess: true },
    });
    expect(same.status).toBe(200);

    const rows = await gw.db.db
      .select({ target: auditLog.target, metadata: auditLog.metadata })
      .from(auditLog)
      .where(and(eq(auditLog.orgId, orgId), eq(auditLog.action, "CONNECTOR_UPDATED")))
      .orderBy(auditLog.seq);
    expect(rows).toEqual([
      {
        target: c.id,
        metadata: expect.objectContaining({ changes: { writeAccess: { before: true, after: false } } }),
      },
      {
        target: c.id,
        metadata: expect.objectContaining({
          changes: {
            displayName: { before: "Sandbox", after: "Training tenant" },
            writeAccess: { before: false, after: true },
          },
        }),
      },
    ]);
  });

  it("refuses a member, an unknown field, and another organization's connector", async () => {
    const owner = await gw.createActor({ plan: "enterprise" });
    const c = await connect(owner.cookie);
    const member = await gw.createUser(owner.orgId, "member");
    const memberKey = (await gw.createApiKey(owner.orgId, member.id)).key;
    const patch = (body: unknown, auth: { key?: string; cookie?: string }, id = c.id) =>
      gw.request("PATCH", `/api/connectors/${id}`, { ...auth, ip: freshIp(), body });

    const asMember = await patch({ writeAccess: false }, { key: memberKey });
    expect(asMember.status).toBe(403);

    const unknown = await patch({ writeAccess: false, mode: "real" }, { key: owner.key });
    expect(unknown.status).toBe(400);
    expect(errorCode(unknown)).toBe("invalid_input");
    const notBoolean = await patch({ writeAccess: "yes" }, { key: owner.key });
    expect(notBoolean.status).toBe(400);

    const stranger = await gw.createActor({ plan: "enterprise" });
    const theirs = await patch({ writeAccess: false }, { key: stranger.key });
    expect(theirs.status).toBe(404);
    const missing = await patch({ writeAccess: false }, { key: owner.key }, "no-such-connector");
    expect(missing.status).toBe(404);

    // Nothing of that changed the connector.
    const list = await gw.request("GET", "/api/connectors", { key: owner.key, ip: freshIp() });
    expect((list.body as { connectors: TConnector[] }).connectors).toEqual([
      expect.objectContaining({ id: c.id, writeAccess: true }),
    ]);
  });

  it("is in the OpenAPI document, with the scopes it needs pointed to", async () => {
    const res = await gw.request("GET", "/api/openapi.json", { ip: freshIp() });
    const doc = res.body as {
      paths: Record<string, Record<string, { description?: string; requestBody?: unknown }>>;
    };
    const op = doc.paths["/connectors/{id}"]?.patch;
    expect(op?.description).toContain("docs/operations.md");
    expect(JSON.stringify(op?.requestBody)).toContain("writeAccess");
  });
});
