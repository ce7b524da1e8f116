import { apiKeys, memberships, organizations, users } from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { resolveApiKey } from "@posture/platform";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemoIfEmpty } from "./demo";
import { verifyPassword } from "./passwords";

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(async () => {
  await db.drop();
});

describe("seedDemoIfEmpty", () => {
  it("creates the demo organizations, users and an API key once", async () => {
    const seed = await seedDemoIfEmpty(db.db);
    if (!seed) throw new Error("expected a seed on an empty database");

    const orgs = await db.db.select().from(organizations);
    const byName = new Map(orgs.map((o) => [o.name, o]));
    const northwind = byName.get("Northwind MSP");
    expect(northwind).toMatchObject({ plan: "enterprise", isPartner: true });
    expect(byName.get("Acme Corp")).toMatchObject({ plan: "business", managedByOrgId: northwind?.id });
    expect(byName.get("Globex")).toMatchObject({ plan: "team", managedByOrgId: northwind?.id });
    expect(seed.organizations.map((o) => o.name).sort()).toEqual(["Acme Corp", "Globex", "Northwind MSP"]);

    const acmeRoles = seed.users.filter((u) => u.orgName === "Acme Corp").map((u) => u.role);
    expect(acmeRoles.sort()).toEqual(["ADMIN", "OWNER", "member"]);
    expect(seed.users.some((u) => u.orgName === "Globex" && u.role === "OWNER")).toBe(true);

    // The printed passwords are the ones that work.
    for (const u of seed.users) {
      const [row] = await db.db.select().from(users).where(eq(users.email, u.email));
      expect(row && (await verifyPassword(u.password, row.passwordHash))).toBe(true);
    }
    expect(new Set(seed.users.map((u) => u.password)).size).toBe(seed.users.length);

    const resolved = await resolveApiKey(db.db, seed.apiKey.key);
    expect(resolved.ok && resolved.principal).toMatchObject({ role: "OWNER", org: { name: "Acme Corp" } });

    expect(await seedDemoIfEmpty(db.db)).toBeNull();
    expect(await db.db.select().from(organizations)).toHaveLength(3);
    expect(await db.db.select().from(apiKeys)).toHaveLength(1);
    expect(await db.db.select().from(memberships)).toHaveLength(seed.users.length);
  });
});
