import { describe, expect, it } from "vitest";
import { widens } from "./prevention-approval";

// Four eyes over acting prevention rules (issue 28): which changes clear a rule's approval.

const rule = (o: Partial<Parameters<typeof widens>[1]> = {}) => ({
  enabled: true,
  action: "REVOKE_PUBLIC_LINK" as const,
  dryRun: false,
  match: { categories: ["public_exposure"] },
  ...o,
});

describe("widens", () => {
  it("is true when a rule starts to act, changes its action or matches more", () => {
    expect(widens(null, rule())).toBe(true);
    expect(widens(rule({ enabled: false }), rule())).toBe(true);
    expect(widens(rule({ dryRun: true }), rule())).toBe(true);
    expect(widens(rule({ action: "ALERT_ONLY" }), rule())).toBe(true);
    expect(widens(rule(), rule({ action: "REMOVE_EXTERNAL_ACCESS" }))).toBe(true);
    expect(widens(rule(), rule({ match: { categories: ["public_exposure", "external_sharing"] } }))).toBe(
      true,
    );
    expect(widens(rule({ match: { categories: ["public_exposure"], minSeverity: "HIGH" } }), rule())).toBe(
      true,
    );
    expect(widens(rule(), rule({ match: { minSeverity: "LOW" } }))).toBe(true);
  });

  it("is false when a rule narrows, stops acting or only changes its name", () => {
    expect(widens(rule(), rule())).toBe(false);
    expect(
      widens(rule(), rule({ match: { categories: ["public_exposure"], minSeverity: "CRITICAL" } })),
    ).toBe(false);
    expect(
      widens(rule({ match: { minSeverity: "HIGH" } }), rule({ match: { minSeverity: "CRITICAL" } })),
    ).toBe(false);
    expect(widens(rule(), rule({ enabled: false }))).toBe(false);
    expect(widens(rule(), rule({ dryRun: true }))).toBe(false);
    expect(widens(rule(), rule({ action: "ALERT_ONLY" }))).toBe(false);
  });
});
