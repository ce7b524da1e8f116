import { describe, expect, it } from "vitest";
import { domainIn } from "@posture/platform";
import {
  baseSeverity,
  classifyPermission,
  ratedSeverity,
  riskRank,
  sensitivityOf,
  stableId,
} from "./classify";

const internal = new Set(["acme.com"]);

describe("classification", () => {
  it("derives ids from connector and external id only", () => {
    expect(stableId("wsf", "con_a", "f1")).toBe(stableId("wsf", "con_a", "f1"));
    expect(stableId("wsf", "con_a", "f1")).not.toBe(stableId("wsf", "con_b", "f1"));
    expect(stableId("wsf", "con_a", "f1")).toMatch(/^wsf_[A-Za-z0-9_-]{27}$/);
    // The separator keeps ("a", "bc") and ("ab", "c") apart.
    expect(stableId("x", "a", "bc")).not.toBe(stableId("x", "ab", "c"));
  });

  it("rates sensitivity from labels first, then whole words of the name", () => {
    expect(sensitivityOf("Payroll2024.xlsx")).toBe("high");
    expect(sensitivityOf("customerPasswords.txt")).toBe("high");
    expect(sensitivityOf("Vendor contract.pdf")).toBe("high");
    expect(sensitivityOf("Q3 budget.xlsx")).toBe("medium");
    expect(sensitivityOf("syntax notes.md")).toBe("low");
    expect(sensitivityOf("notes.md", ["Highly Confidential"])).toBe("high");
    expect(sensitivityOf("notes.md", ["Confidential"])).toBe("high");
    expect(sensitivityOf("notes.md", ["Internal"])).toBe("low");
    expect(sensitivityOf("notes.md", ["General"])).toBe("low");
    expect(sensitivityOf("Payroll.xlsx", ["General"])).toBe("high");
  });

  it("classifies permissions by audience, subdomains of internal domains included", () => {
    expect(classifyPermission({ id: "1", type: "anyone", role: "reader" }, internal)).toEqual({
      sharingType: "public",
      target: "anyone",
      domain: null,
    });
    expect(
      classifyPermission({ id: "2", type: "user", role: "reader", emailAddress: "Bob@EU.acme.com" }, internal)
        .sharingType,
    ).toBe("internal");
    expect(
      classifyPermission({ id: "3", type: "user", role: "writer", emailAddress: "x@gmail.com" }, internal),
    ).toEqual({
      sharingType: "external_user",
      target: "x@gmail.com",
      domain: "gmail.com",
    });
    expect(
      classifyPermission({ id: "4", type: "domain", role: "reader", domain: "Partner.io" }, internal),
    ).toEqual({
      sharingType: "external_domain",
      target: "partner.io",
      domain: "partner.io",
    });
    expect(
      classifyPermission({ id: "5", type: "domain", role: "reader", domain: "acme.com" }, internal)
        .sharingType,
    ).toBe("internal");
  });

  it("rates shares like the findings' rules, lowered one level when every domain is trusted", () => {
    expect(baseSeverity("public", "reader", "low")).toBe("HIGH");
    expect(baseSeverity("public", "reader", "high")).toBe("CRITICAL");
    expect(baseSeverity("public", "writer", "low")).toBe("CRITICAL");
    expect(baseSeverity("external_user", "reader", "low")).toBe("MEDIUM");
    expect(baseSeverity("external_user", "writer", "low")).toBe("HIGH");
    const trusted = new Set(["partner.io"]);
    expect(ratedSeverity("HIGH", ["eu.partner.io"], trusted)).toBe("MEDIUM");
    expect(ratedSeverity("HIGH", ["partner.io", "gmail.com"], trusted)).toBe("HIGH");
    expect(ratedSeverity("LOW", ["partner.io"], trusted)).toBe("LOW");
    expect(ratedSeverity("HIGH", [], trusted)).toBe("HIGH");
    expect(domainIn(trusted, "notpartner.io")).toBe(false);
  });

  it("orders risk by severity, then sensitivity, audience and fan-out", () => {
    expect(riskRank("CRITICAL", "low", "external_user", 1)).toBeGreaterThan(
      riskRank("HIGH", "high", "public", 9),
    );
    expect(riskRank("HIGH", "high", "external_user", 1)).toBeGreaterThan(
      riskRank("HIGH", "medium", "public", 9),
    );
    expect(riskRank("HIGH", "low", "public", 1)).toBeGreaterThan(
      riskRank("HIGH", "low", "external_domain", 9),
    );
    expect(riskRank("HIGH", "low", "external_user", 50) % 10).toBe(9);
  });
});
