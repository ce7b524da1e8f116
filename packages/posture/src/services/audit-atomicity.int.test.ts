import { randomBytes } from "node:crypto";
import {
  auditLog,
  connectors,
  organizations,
  securityPolicies,
  preventionRules,
  ticketingIntegrations,
} from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import type { TActor, TAuditAction, TRuntime } from "@posture/platform";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConnector, deleteConnector } from "./connectors";
import { createRule, deleteRule, updateRule } from "./policies";
import { configureTicketing } from "./tickets";

// Every mutation writes its audit row in its own transaction: both commit or neither does. The
// failure is injected after the change, at the audit insert itself: an actor without an e-mail
// is refused by audit_log (user_email is NOT NULL), as any failure of that write would be.

let db: TestDb;
const actor: TActor = { kind: "session", userId: "usr_admin", email: "admin@example.test" };
const refusedActor = { kind: "session", userId: "usr_admin", email: null } as unknown as TActor;
const runtime: TRuntime = {
  encryptionKey: randomBytes(32),
  publicUrl: "http://localhost:3000",
  webhookAllowPrivateTargets: true,
};

beforeAll(async () => {
  db = await createTestDb();
});
afterAll(async () => {
  await db?.drop();
});

async function newOrg(): Promise<string> {
  const [org] = await db.db
    .insert(organizations)
    .values({ name: "Atomic Co", plan: "business" })
    .returning({ id: organizations.id });
  if (!org) throw new Error("no org");
  return org.id;
}

const auditRows = (orgId: string, action: TAuditAction) =>
  db.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.orgId, orgId), eq(auditLog.action, action)));

const demoConnector = { type: "google_workspace", displayName: "Drive", mode: "demo" } as const;

describe("connectors: the change and its audit row commit together", () => {
  it("a failed audit write leaves no connector behind", async () => {
    const orgId = await newOrg();
    await expect(
      createConnector(db.db, { orgId, actor: refusedActor, plan: "business", ...demoConnector }, runtime),
    ).rejects.toThrow();
    expect(await db.db.select().from(connectors).where(eq(connectors.orgId, orgId))).toEqual([]);
    expect(await auditRows(orgId, "CONNECTOR_CONNECTED")).toEqual([]);
  });

  it("a successful create has both, attributed to the actor", async () => {
    const orgId = await newOrg();
    const view = await createConnector(db.db, { orgId, actor, plan: "business", ...demoConnector }, runtime);
    expect(await db.db.select().from(connectors).where(eq(connectors.id, view.id))).toHaveLength(1);
    expect(await auditRows(orgId, "CONNECTOR_CONNECTED")).toMatchObject([
      { target: view.id, userId: actor.userId, userEmail: actor.email },
    ]);
  });

  it("a failed audit write on delete keeps the connector", async () => {
    const orgId = await newOrg();
    const view = await createConnector(db.db, { orgId, actor, plan: "business", ...demoConnector }, runtime);
    await expect(deleteConnector(db.db, { orgId, actor: refusedActor, id: view.id })).rejects.toThrow();
    expect(await db.db.select().from(connectors).where(eq(connectors.id, view.id))).toHaveLength(1);
    expect(await auditRows(orgId, "CONNECTOR_DISCONNECTED")).toEqual([]);

    await deleteConnector(db.db, { orgId, actor, id: view.id });
    expect(await db.db.select().from(connectors).where(eq(connectors.id, view.id))).toEqual([]);
    expect(await auditRows(orgId, "CONNECTOR_DISCONNECTED")).toMatchObject([{ target: view.id }]);
  });

  it("another organization's connector is a 404, and nothing is audited", async () => {
    const orgId = await newOrg();
    const other = await newOrg();
    const view = await createConnector(db.db, { orgId, actor, plan: "business", ...demoConnector }, runtime);
    await expect(deleteConnector(db.db, { orgId: other, actor, id: view.id })).rejects.toMatchObject({
      code: "not_found",
    });
    expect(await auditRows(other, "CONNECTOR_DISCONNECTED")).toEqual([]);
  });
});

describe("policies and prevention rules: the change and its audit row commit together", () => {
  const rule = { name: "No public links", match: { categories: ["public_exposure"] } };

  it("a failed audit write leaves no new rule behind", async () => {
    const orgId = await newOrg();
    for (const kind of ["policy", "prevention"] as const) {
      await expect(createRule(db.db, { orgId, actor: refusedActor, kind, ...rule })).rejects.toThrow();
    }
    expect(await db.db.select().from(securityPolicies).where(eq(securityPolicies.orgId, orgId))).toEqual([]);
    expect(await db.db.select().from(preventionRules).where(eq(preventionRules.orgId, orgId))).toEqual([]);
    expect(await auditRows(orgId, "POLICY_CHANGED")).toEqual([]);
  });

  it("a failed audit write leaves an update and a delete undone", async () => {
    const orgId = await newOrg();
    const created = await createRule(db.db, { orgId, actor, kind: "policy", ...rule });
    await expect(
      updateRule(db.db, {
        orgId,
        actor: refusedActor,
        kind: "policy",
        id: created.id,
        patch: { name: "Renamed", enabled: false },
      }),
    ).rejects.toThrow();
    await expect(
      deleteRule(db.db, { orgId, actor: refusedActor, kind: "policy", id: created.id }),
    ).rejects.toThrow();
    const [row] = await db.db.select().from(securityPolicies).where(eq(securityPolicies.id, created.id));
    expect(row).toMatchObject({ name: rule.name, enabled: true });
    expect(await auditRows(orgId, "POLICY_CHANGED")).toMatchObject([{ metadata: { change: "created" } }]);
  });

  it("successful changes each leave one audit row, in order", async () => {
    const orgId = await newOrg();
    const created = await createRule(db.db, { orgId, actor, kind: "prevention", ...rule });
    expect(created).toMatchObject({ action: "ALERT_ONLY", enabled: true });
    await updateRule(db.db, { orgId, actor, kind: "prevention", id: created.id, patch: { enabled: false } });
    await deleteRule(db.db, { orgId, actor, kind: "prevention", id: created.id });
    expect(await db.db.select().from(preventionRules).where(eq(preventionRules.orgId, orgId))).toEqual([]);
    const rows = await auditRows(orgId, "POLICY_CHANGED");
    expect(rows.sort((a, b) => a.seq - b.seq).map((r) => r.metadata)).toEqual([
      { change: "created", kind: "prevention" },
      { change: "updated", kind: "prevention" },
      { change: "deleted", kind: "prevention" },
    ]);
  });
});

describe("ticketing configuration: the change and its audit row commit together", () => {
  const config = {
    provider: "github",
    baseUrl: "http://127.0.0.1:9",
    project: "acme/security",
    token: "github_pat_x",
  } as const;

  it("a failed audit write leaves no integration behind; a successful one has both", async () => {
    const orgId = await newOrg();
    await expect(
      configureTicketing(db.db, { orgId, actor: refusedActor, ...config }, runtime),
    ).rejects.toThrow();
    const integration = () =>
      db.db.select().from(ticketingIntegrations).where(eq(ticketingIntegrations.orgId, orgId));
    expect(await integration()).toEqual([]);
    expect(await auditRows(orgId, "TICKETING_CONFIGURED")).toEqual([]);

    await configureTicketing(db.db, { orgId, actor, ...config }, runtime);
    expect(await integration()).toHaveLength(1);
    expect(await auditRows(orgId, "TICKETING_CONFIGURED")).toHaveLength(1);
  });
});
