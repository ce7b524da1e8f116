import type { inferRouterOutputs } from "@trpc/server";
import { describe, expectTypeOf, it } from "vitest";
import {
  createPostureClient,
  errorCodeOf,
  type AppRouter,
  type RouterInputs,
  type RouterOutputs,
  type TPostureClient,
  type TPostureClientError,
} from "./index";

// Type-level tests: vitest runs this file (its assertions are no-ops at run time) and
// `pnpm --filter @posture/client typecheck` compiles it, failing when a procedure's key, input or
// output moves away from what UI teams rely on. Inputs are compared exactly where the contract
// fixes them; outputs are checked as "at least these fields" (responses may gain fields).

type TSeverity = "CRITICAL" | "HIGH" | "MEDIUM" | "LOW";
type TRole = "OWNER" | "ADMIN" | "member";
type TPlan = "free" | "starter" | "team" | "business" | "enterprise";

describe("AppRouter through @posture/client", () => {
  it("names procedures by their keys, queries and mutations apart", () => {
    expectTypeOf<TPostureClient["findings"]["list"]["query"]>().toBeFunction();
    expectTypeOf<TPostureClient["posture"]["breakdown"]["get"]["query"]>().toBeFunction();
    expectTypeOf<TPostureClient["remediations"]["create"]["mutate"]>().toBeFunction();
    expectTypeOf<TPostureClient["remediations"]["applyPlan"]["mutate"]>().toBeFunction();
    expectTypeOf<TPostureClient["auth"]["signIn"]["mutate"]>().toBeFunction();
    expectTypeOf<TPostureClient["findings"]["list"]>().not.toHaveProperty("mutate");
    expectTypeOf<TPostureClient["remediations"]["create"]>().not.toHaveProperty("query");
    expectTypeOf(createPostureClient).returns.toEqualTypeOf<TPostureClient>();
    expectTypeOf<RouterOutputs>().toEqualTypeOf<inferRouterOutputs<AppRouter>>();
  });

  it("findings.list: the list's filters in, a page of findings out", () => {
    expectTypeOf<RouterInputs["findings"]["list"]>().toEqualTypeOf<{
      limit?: number;
      offset?: number;
      status?: "OPEN" | "RESOLVED" | "ACCEPTED" | "all";
      severity?: TSeverity;
      category?: RouterInputs["findings"]["list"]["category"];
    }>();
    expectTypeOf<RouterOutputs["findings"]["list"]>().toExtend<{
      findings: Array<{
        id: string;
        severity: TSeverity;
        title: string;
        resourceName: string;
        status: "OPEN" | "RESOLVED" | "ACCEPTED";
        detectedAt: string;
        resolvedAt: string | null;
      }>;
      total: number;
      limit: number;
      offset: number;
      nextOffset: number | null;
    }>();
    // A filter value outside the enum does not compile.
    expectTypeOf<{ severity: "SEVERE" }>().not.toExtend<RouterInputs["findings"]["list"]>();
  });

  it("posture.breakdown.get: no input; score, grade and quick wins with their plans", () => {
    expectTypeOf<RouterInputs["posture"]["breakdown"]["get"]>().toEqualTypeOf<void>();
    expectTypeOf<RouterOutputs["posture"]["breakdown"]["get"]>().toExtend<{
      score: number;
      grade: string;
      categories: Array<{ category: string; deductionPoints: number; findingCount: number }>;
      quickWins: Array<{
        action:
          | "remove_public_link"
          | "remove_external_access"
          | "revoke_oauth_grant"
          | "change_setting"
          | "remove_org_wide_link"
          | "remove_everyone_grant"
          | "remove_group_grant";
        title: string;
        findingIds: string[];
        scoreDelta: number;
        plan: { findingIds: string[] } | { quickWin: string } | null;
      }>;
    }>();
    expectTypeOf<RouterOutputs["posture"]["history"]["list"]>().toExtend<{
      history: Array<{ score: number; at: string }>;
    }>();
  });

  it("remediations.create: what to fix in, a plan with steps and a prediction out", () => {
    expectTypeOf<{ findingIds: string[] }>().toExtend<RouterInputs["remediations"]["create"]>();
    expectTypeOf<{ quickWin: "public_links" }>().toExtend<RouterInputs["remediations"]["create"]>();
    expectTypeOf<{
      playbook: { kind: "offboard_user"; userEmail: string };
    }>().toExtend<RouterInputs["remediations"]["create"]>();
    expectTypeOf<{ findingIds: number[] }>().not.toExtend<RouterInputs["remediations"]["create"]>();
    expectTypeOf<RouterOutputs["remediations"]["create"]>().toExtend<{
      id: string;
      status:
        | "PLANNED"
        | "APPROVED"
        | "CANCELLED"
        | "APPLYING"
        | "APPLIED"
        | "PARTIAL"
        | "FAILED"
        | "REVERTING"
        | "REVERTED";
      predicted: { score: number; grade: string; scoreDelta: number };
      steps: Array<{ id: string; action: string; reversible: boolean; findingIds: string[] }>;
      controls: Array<{ framework: string; controlId: string }>;
    }>();
    expectTypeOf<RouterInputs["remediations"]["applyPlan"]>().toEqualTypeOf<{ id: string }>();
  });

  it("auth: sign-in takes e-mail, password and optionally the organization; the session names them", () => {
    expectTypeOf<RouterInputs["auth"]["signIn"]>().toEqualTypeOf<{
      email: string;
      password: string;
      organizationId?: string | undefined;
    }>();
    expectTypeOf<RouterOutputs["auth"]["session"]["get"]>().toExtend<{
      user: { id: string; email: string; role: TRole };
      organization: { id: string; name: string; plan: TPlan };
      memberships: Array<{ organizationId: string; name: string; role: TRole; isSandbox: boolean }>;
    }>();
    expectTypeOf<RouterOutputs["auth"]["signIn"]>().toEqualTypeOf<RouterOutputs["auth"]["session"]["get"]>();
  });

  it("errors carry the contract's code", () => {
    type TCode = NonNullable<TPostureClientError["data"]>["error"];
    expectTypeOf<"csrf_rejected" | "forbidden" | "not_found" | "rate_limited">().toExtend<TCode>();
    expectTypeOf<"no_such_code">().not.toExtend<TCode>();
    expectTypeOf<NonNullable<TPostureClientError["data"]>["httpStatus"]>().toEqualTypeOf<number>();
    expectTypeOf(errorCodeOf).returns.toEqualTypeOf<string | undefined>();
  });
});
