import { describe, expect, it } from "vitest";
import {
  fileSensitivity,
  labelSensitivity,
  outsideGrantSeverity,
  outsideItemSeverity,
  publicLinkSeverity,
} from "./share-rating";

describe("label sensitivity", () => {
  it("takes Confidential and above of both taxonomies as highly sensitive", () => {
    for (const label of [
      "Highly Confidential",
      "Confidential",
      "Confidential\\All Employees",
      "Highly Confidential - Finance",
      "Top Secret",
      "Restricted",
      "Sensitive",
      "HighlyConfidential",
    ])
      expect({ label, s: labelSensitivity(label) }).toEqual({ label, s: "high" });
  });

  it("takes General, Internal, Public, Personal, negations and no label as stating nothing", () => {
    for (const label of [
      "General",
      "Internal",
      "Public",
      "Personal",
      "Non-Confidential",
      "Not Restricted",
      "",
      null,
    ])
      expect({ label, s: labelSensitivity(label) }).toEqual({ label, s: "low" });
  });

  it("rates a file by the more sensitive of its label and its name; a label never lowers it", () => {
    expect(fileSensitivity("Team notes", ["Confidential"])).toBe("high");
    expect(fileSensitivity("Payroll 2025", ["General"])).toBe("high");
    expect(fileSensitivity("Q3 budget", ["Public"])).toBe("medium");
    expect(fileSensitivity("Team notes", ["Internal"])).toBe("low");
    expect(fileSensitivity("Team notes")).toBe("low");
  });
});

describe("the share scale", () => {
  it("makes a read-only public link CRITICAL on a highly sensitive file", () => {
    expect(publicLinkSeverity("reader", "low")).toBe("HIGH");
    expect(publicLinkSeverity("reader", "high")).toBe("CRITICAL");
  });

  it("raises an outside grant on a highly sensitive file one level, capped, before a trusted destination lowers it", () => {
    expect(outsideGrantSeverity("reader", false)).toBe("MEDIUM");
    expect(outsideGrantSeverity("reader", false, "high")).toBe("HIGH");
    expect(outsideGrantSeverity("writer", false, "high")).toBe("CRITICAL");
    expect(outsideGrantSeverity("reader", true, "high")).toBe("MEDIUM");
    expect(outsideGrantSeverity("writer", true, "high")).toBe("HIGH");
    expect(outsideGrantSeverity("reader", false, "medium")).toBe("MEDIUM");
    expect(outsideItemSeverity("writer", "high")).toBe("CRITICAL");
  });
});
