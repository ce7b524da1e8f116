import { randomBytes } from "node:crypto";
import type { Db } from "@posture/db";
import { createApiKeyFor, createOrganization, createUser } from "@posture/account";
import type { TPlanId } from "@posture/platform";

/** An organization with one OWNER holding an API key: the caller every scenario uses. */
export async function seedOwnerWithKey(db: Db, plan: TPlanId = "business") {
  const org = await createOrganization(db, { name: `Bench ${randomBytes(3).toString("hex")}`, plan });
  const user = await createUser(db, {
    orgId: org.id,
    email: `bench-${randomBytes(4).toString("hex")}@example.test`,
    password: randomBytes(12).toString("hex"),
    role: "OWNER",
  });
  const { key } = await createApiKeyFor(db, { orgId: org.id, userId: user.id, name: "bench" });
  return { orgId: org.id, userId: user.id, userEmail: user.email, key };
}
