import { beforeAll, describe, expect, it } from "vitest";
import type { TRole } from "@posture/db";
import {
  PLAN_IDS,
  PLANS,
  atLeast,
  minimumPlanFor,
  routeCatalog,
  type TAccess,
  type TPlanId,
} from "@posture/platform";
import { appRouter } from "../router";
import { type TTestGateway, useTestGateway, type TTestResponse } from "../testing";
import { freshIp } from "./helpers";

/**
 * The shared auth / plan / role matrix: every REST procedure of the router, whoever wrote it,
 * is called with every credential it must refuse, and with one it must accept. A new route is
 * covered the moment it is added to the router.
 */

type TRoute = { name: string; method: string; path: string; access: TAccess };

const DUMMY_ID = "matrix_dummy_id";
const catalog = routeCatalog(appRouter);

const routes: TRoute[] = catalog.rest.flatMap(({ key, rest, access }) => {
  if (!access) return [];
  const path = `/api${rest.path.replace(/\{[^}]+\}/g, DUMMY_ID)}`;
  return [{ name: key, method: rest.method, path, access }];
});

const ROLES_BELOW: Record<NonNullable<TAccess["role"]>, TRole[]> = {
  ADMIN: ["member"],
  OWNER: ["member", "ADMIN"],
};
const GUARD_CODES = [
  "unauthenticated",
  "session_required",
  "partner_required",
  "plan_upgrade_required",
  "forbidden",
];

type TActor = Awaited<ReturnType<TTestGateway["createActor"]>>;
type TCall = { key?: string; cookie?: string };
type TRow = {
  label: string;
  call: () => Promise<TCall>;
  status: number;
  code: string;
  check?: (body: unknown) => string | null;
};

const gw = useTestGateway();
const actors = new Map<string, Promise<TActor>>();
// Organizations are made once per (plan, role, partner) and shared by every route.
const actor = (plan: TPlanId, role: TRole, isPartner: boolean) => {
  const id = `${plan}/${role}/${isPartner}`;
  let a = actors.get(id);
  if (!a) {
    a = gw.createActor({ plan, role, isPartner });
    actors.set(id, a);
  }
  return a;
};
const top = (r: TRoute) => actor("enterprise", "OWNER", r.access.auth === "partner");

let badKeys: { revoked: string; expired: string };
beforeAll(async () => {
  const owner = await actor("enterprise", "OWNER", false);
  badKeys = {
    revoked: (await gw.createApiKey(owner.orgId, owner.user.id, { revokedAt: new Date(Date.now() - 1000) }))
      .key,
    expired: (await gw.createApiKey(owner.orgId, owner.user.id, { expiresAt: new Date(Date.now() - 1000) }))
      .key,
  };
});

function call(route: TRoute, c: TCall): Promise<TTestResponse> {
  const withBody = ["POST", "PATCH", "PUT"].includes(route.method);
  return gw.request(route.method, route.path, { ...c, ip: freshIp(), ...(withBody ? { body: {} } : {}) });
}

const upgradeTo = (plan: TPlanId) => (body: unknown) => {
  const got = (body as { upgrade?: { requiredPlan?: unknown } }).upgrade?.requiredPlan;
  return got === plan ? null : `upgrade.requiredPlan ${String(got)}, expected ${plan}`;
};

function rowsFor(route: TRoute): TRow[] {
  const { access } = route;
  if (access.auth === "public") return [];
  const unauth = (label: string, c: () => Promise<TCall>): TRow => ({
    label,
    call: c,
    status: 401,
    code: "unauthenticated",
  });
  const rows: TRow[] = [
    unauth("no credential", async () => ({})),
    unauth("malformed key", async () => ({ key: "svc_ak_not-a-key" })),
    unauth("unknown key", async () => ({ key: `svc_ak_${"ab".repeat(20)}` })),
    unauth("revoked key", async () => ({ key: badKeys.revoked })),
    unauth("expired key", async () => ({ key: badKeys.expired })),
    unauth("unknown session", async () => ({ cookie: `svc_session=${"x".repeat(43)}` })),
  ];
  if (access.auth === "session") {
    rows.push({
      label: "API key on a Session route",
      call: async () => ({ key: (await top(route)).key }),
      status: 403,
      code: "session_required",
    });
  }
  if (access.auth === "apiKey") {
    rows.push({
      label: "API key of a team organization (no apiAccess)",
      call: async () => ({ key: (await actor("team", "OWNER", false)).key }),
      status: 402,
      code: "plan_upgrade_required",
      check: upgradeTo(minimumPlanFor("apiAccess")),
    });
  }
  if (access.auth === "partner") {
    for (const kind of ["cookie", "key"] as const) {
      rows.push({
        label: `non-partner ${kind}`,
        call: async () => {
          const a = await actor("enterprise", "OWNER", false);
          return kind === "cookie" ? { cookie: a.cookie } : { key: a.key };
        },
        status: 403,
        code: "partner_required",
      });
    }
  }
  const partner = access.auth === "partner";
  // Plans are probed with a session, so that apiAccess never decides the answer.
  for (const plan of PLAN_IDS) {
    const belowPlan = access.plan !== undefined && !atLeast(plan, access.plan);
    const lacksFeature = access.feature !== undefined && !PLANS[plan].features[access.feature];
    if (!belowPlan && !lacksFeature) continue;
    const required = belowPlan && access.plan ? access.plan : minimumPlanFor(access.feature ?? "apiAccess");
    rows.push({
      label: `session on the ${plan} plan`,
      call: async () => ({ cookie: (await actor(plan, "OWNER", partner)).cookie }),
      status: 402,
      code: "plan_upgrade_required",
      check: belowPlan ? upgradeTo(access.plan ?? plan) : upgradeTo(required),
    });
  }
  for (const role of access.role ? ROLES_BELOW[access.role] : []) {
    rows.push({
      label: `role ${role}`,
      call: async () => ({ cookie: (await actor("enterprise", role, partner)).cookie }),
      status: 403,
      code: "forbidden",
    });
  }
  return rows;
}

describe("the matrix covers the router", () => {
  it("every REST procedure declares its access", () => {
    const undeclared = catalog.rest.filter((e) => !e.access).map((e) => e.key);
    expect(undeclared).toEqual([]);
    expect(routes.length).toBe(catalog.rest.length);
  });
});

describe.each(routes.map((r) => [`${r.method} ${r.path}`, r] as const))("%s", (_label, route) => {
  // Public routes (health, sign-in) have nothing to refuse; they only get the acceptance check.
  if (route.access.auth !== "public") {
    it(`refuses what ${route.access.auth} / ${route.access.plan ?? "any plan"} / ${route.access.feature ?? "-"} / ${route.access.role ?? "any role"} must refuse`, async () => {
      const mismatches: string[] = [];
      for (const row of rowsFor(route)) {
        const res = await call(route, await row.call());
        const code = (res.body as { error?: unknown } | undefined)?.error;
        if (res.status !== row.status || code !== row.code) {
          mismatches.push(
            `${row.label}: got ${res.status} ${String(code)}, expected ${row.status} ${row.code}`,
          );
          continue;
        }
        const problem = row.check?.(res.body);
        if (problem) mismatches.push(`${row.label}: ${problem}`);
      }
      expect(mismatches).toEqual([]);
    });
  }

  it("lets a caller with the right credential, plan and role past every guard", async () => {
    let c: TCall = {};
    if (route.access.auth !== "public") {
      const a = await top(route);
      // A fresh session: the accepted call may be a sign-out, which must not end a shared one.
      c =
        route.access.auth === "session"
          ? { cookie: await gw.createSession(a.orgId, a.user.id) }
          : { key: a.key };
    }
    const res = await call(route, c);
    const code = (res.body as { error?: unknown } | undefined)?.error;
    expect(GUARD_CODES).not.toContain(code);
    expect(res.status).toBeLessThan(500);
  });
});
