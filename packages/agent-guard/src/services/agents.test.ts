import { describe, expect, it } from "vitest";
import { agentIdOf, riskBandOf } from "./agents";
import { isKnownVendor } from "./known-vendors";
import { isBroad, reachOf } from "./scope-reach";

describe("agent classification", () => {
  it("reads scope reach for Google URLs and Graph names alike", () => {
    expect(reachOf("https://www.googleapis.com/auth/drive")).toMatchObject({
      breadth: "user",
      kind: "files",
      write: true,
    });
    expect(reachOf("https://graph.microsoft.com/Files.Read.All")).toMatchObject({
      breadth: "org",
      write: false,
    });
    expect(reachOf("openid").breadth).toBe("narrow");
    expect(isBroad(["openid", "email"])).toBe(false);
    expect(isBroad(["openid", "Mail.Read"])).toBe(true);
  });

  it("recognises known vendors by name or domain, not by look-alikes", () => {
    expect(isKnownVendor("Slack Technologies")).toBe(true);
    expect(isKnownVendor("zoom.com")).toBe(true);
    expect(isKnownVendor("eu.atlassian.com")).toBe(true);
    expect(isKnownVendor("google.attacker.app")).toBe(false);
    expect(isKnownVendor("slackbotz.app")).toBe(false);
    expect(isKnownVendor("")).toBe(false);
  });

  it("bands scores and keeps ids stable per connector and client", () => {
    expect([riskBandOf(10), riskBandOf(35), riskBandOf(60), riskBandOf(95)]).toEqual([
      "low",
      "medium",
      "high",
      "critical",
    ]);
    expect(agentIdOf("con_a", "client-1")).toBe(agentIdOf("con_a", "client-1"));
    expect(agentIdOf("con_a", "client-1")).not.toBe(agentIdOf("con_b", "client-1"));
  });
});
