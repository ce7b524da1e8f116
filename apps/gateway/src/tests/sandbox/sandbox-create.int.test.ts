import { and, count, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { memberships, organizations } from "@posture/db";
import { useTestGateway } from "../../testing";
import { call } from "./harness";

// POST /api/sandbox: at most 10 sandboxes per user, however many requests arrive at once (the
// count and the insert share a transaction holding the user's row), and only from an organization
// on a plan with API access (business+), as the features a sandbox is made to try.

const gw = useTestGateway();

async function sandboxesOf(userId: string) {
  const [row] = await gw.db.db
    .select({ n: count() })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.orgId))
    .where(and(eq(memberships.userId, userId), eq(organizations.isSandbox, true)));
  return row?.n ?? 0;
}

describe("POST /api/sandbox", () => {
  it("makes exactly 10 sandboxes from 16 concurrent requests of one user", async () => {
    const home = await gw.createActor({ plan: "business" });
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        call(gw, "POST", "/api/sandbox", { cookie: home.cookie }, { name: `Race ${i}` }),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([...Array<number>(10).fill(201), ...Array<number>(6).fill(409)]);
    for (const refused of answers.filter((a) => a.status === 409))
      expect(refused.body).toMatchObject({
        error: "conflict",
        message: "A user may belong to at most 10 sandboxes",
      });
    expect(await sandboxesOf(home.user.id)).toBe(10);
  }, 120_000);

  it("another user's sandboxes do not count", async () => {
    const a = await gw.createActor({ plan: "enterprise" });
    const b = await gw.createActor({ plan: "business" });
    const made = await Promise.all([
      call(gw, "POST", "/api/sandbox", { cookie: a.cookie }, {}),
      call(gw, "POST", "/api/sandbox", { cookie: b.cookie }, { partner: true }),
    ]);
    expect(made.map((m) => m.status)).toEqual([201, 201]);
    expect([await sandboxesOf(a.user.id), await sandboxesOf(b.user.id)]).toEqual([1, 1]);
  });

  it.each(["free", "starter", "team"] as const)(
    "is 402 from a %s organization, and makes nothing",
    async (plan) => {
      const home = await gw.createActor({ plan });
      const res = await call(gw, "POST", "/api/sandbox", { cookie: home.cookie }, { partner: true });
      expect(res.status).toBe(402);
      expect(res.body).toEqual({
        error: "plan_upgrade_required",
        message: "This endpoint requires the business plan or higher",
        upgrade: { requiredPlan: "business" },
      });
      expect(await sandboxesOf(home.user.id)).toBe(0);
    },
  );
});
