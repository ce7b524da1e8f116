import { organizations, type Db, type TPlanId, type TRole } from "@posture/db";
import { randomBytes } from "node:crypto";
import { createApiKeyFor } from "./api-keys";
import { createOrganization } from "./organizations";
import { createUser } from "./users";

export type TDemoSeed = {
  organizations: Array<{ id: string; name: string; plan: TPlanId }>;
  users: Array<{ email: string; password: string; role: TRole; orgName: string }>;
  apiKey: { key: string; orgName: string };
};

const DEMO_USERS: Array<{ email: string; role: TRole; org: "acme" | "globex" | "northwind" }> = [
  { email: "owner@acme.example", role: "OWNER", org: "acme" },
  { email: "admin@acme.example", role: "ADMIN", org: "acme" },
  { email: "member@acme.example", role: "member", org: "acme" },
  { email: "owner@globex.example", role: "OWNER", org: "globex" },
  { email: "owner@northwind.example", role: "OWNER", org: "northwind" },
];

const demoPassword = () => randomBytes(12).toString("base64url");

/**
 * First-start demo data: a business customer, a team customer, and the partner managing both.
 * Passwords are random per installation and only ever shown in the return value.
 * Does nothing (null) once any organization exists, so restarts never add a second set.
 */
export async function seedDemoIfEmpty(db: Db): Promise<TDemoSeed | null> {
  const [any] = await db.select({ id: organizations.id }).from(organizations).limit(1);
  if (any) return null;

  const northwind = await createOrganization(db, {
    name: "Northwind MSP",
    plan: "enterprise",
    isPartner: true,
  });
  const acme = await createOrganization(db, {
    name: "Acme Corp",
    plan: "business",
    managedByOrgId: northwind.id,
  });
  const globex = await createOrganization(db, { name: "Globex", plan: "team", managedByOrgId: northwind.id });
  const orgs = { acme, globex, northwind };

  const seeded: TDemoSeed["users"] = [];
  let acmeOwnerId: string | undefined;
  for (const u of DEMO_USERS) {
    const org = orgs[u.org];
    const password = demoPassword();
    const user = await createUser(db, { orgId: org.id, email: u.email, password, role: u.role });
    if (u.org === "acme" && u.role === "OWNER") acmeOwnerId = user.id;
    seeded.push({ email: user.email, password, role: u.role, orgName: org.name });
  }
  if (!acmeOwnerId) throw new Error("demo data has no Acme owner");
  const key = await createApiKeyFor(db, { orgId: acme.id, userId: acmeOwnerId, name: "Demo key" });

  return {
    organizations: [acme, globex, northwind],
    users: seeded,
    apiKey: { key: key.key, orgName: acme.name },
  };
}
