import { describe, expect, it } from "vitest";
import { drive, engine, grant } from "./test-fixtures";

const G = "https://www.googleapis.com/auth/";

describe("shared drive rule", () => {
  function run(drives: ReturnType<typeof drive>[]) {
    const e = engine();
    for (const d of drives) e.addSharedDrive(d);
    return e.findings();
  }

  it("is HIGH with outside members and no domain restriction, MEDIUM when restricted, nothing when all inside", () => {
    const findings = run([
      drive("open", ["a@acme.com", "x@gmail.com"], false),
      drive("restricted", ["a@acme.com", "x@gmail.com"], true),
      drive("inside", ["a@acme.com", "b@eu.acme.com"], false),
    ]);
    expect(findings.map((f) => [f.resourceId, f.ruleId, f.severity, f.category, f.resourceType])).toEqual([
      ["open", "shared_drive_external_members", "HIGH", "shared_drive_exposure", "shared_drive"],
      ["restricted", "shared_drive_external_members", "MEDIUM", "shared_drive_exposure", "shared_drive"],
    ]);
    expect(findings[0]?.details).toMatchObject({ externalMemberCount: 1, memberCount: 2 });
  });

  it("lowers a drive whose outside members are all from trusted domains", () => {
    const findings = run([drive("partners", ["a@acme.com", "p@partner.com"], false)]);
    expect(findings[0]?.severity).toBe("MEDIUM");
  });
});

describe("third-party app rule", () => {
  function run(grants: ReturnType<typeof grant>[]) {
    const e = engine();
    for (const g of grants) e.addAppGrant(g);
    return e.findings();
  }

  it("grades scope breadth × publisher trust, with AI agents worst", () => {
    const findings = run([
      grant("broad-unknown", { scopes: [`${G}drive`], isKnownPublisher: false }),
      grant("broad-unknown-agent", { scopes: ["Mail.ReadWrite"], isKnownPublisher: false, kind: "ai_agent" }),
      grant("broad-known", { scopes: ["Files.ReadWrite.All"], isKnownPublisher: true }),
      grant("narrow-unknown", { scopes: [`${G}drive.file`, "openid"], isKnownPublisher: false }),
      grant("narrow-known", { scopes: ["User.Read"], isKnownPublisher: true }),
    ]);
    expect(findings.map((f) => [f.resourceId, f.ruleId, f.severity])).toEqual([
      ["client-broad-unknown", "app_broad_scopes_unverified", "HIGH"],
      ["client-broad-unknown-agent", "app_broad_scopes_unverified", "CRITICAL"],
      ["client-broad-known", "app_broad_scopes", "MEDIUM"],
      ["client-narrow-unknown", "app_unverified_publisher", "LOW"],
    ]);
    expect(findings.every((f) => f.category === "third_party_apps" && f.resourceType === "app")).toBe(true);
  });

  it("reads Graph scopes case-insensitively and with their resource URL", () => {
    const findings = run([
      grant("url", { scopes: ["https://graph.microsoft.com/Files.Read.All"], isKnownPublisher: false }),
      grant("case", { scopes: ["mail.read"], isKnownPublisher: false }),
    ]);
    expect(findings.map((f) => f.severity)).toEqual(["HIGH", "HIGH"]);
  });

  it("makes one finding per app across its users, from the union of their scopes", () => {
    const findings = run([
      grant("a", {
        clientId: "shared",
        userEmail: "u1@acme.com",
        scopes: ["User.Read"],
        isKnownPublisher: true,
      }),
      grant("b", {
        clientId: "shared",
        userEmail: "u2@acme.com",
        scopes: ["Mail.Read"],
        isKnownPublisher: true,
      }),
      grant("c", {
        clientId: "shared",
        userEmail: "u2@acme.com",
        scopes: ["User.Read"],
        isKnownPublisher: true,
      }),
    ]);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({
      resourceId: "shared",
      severity: "MEDIUM",
      details: { userCount: 2, grantCount: 3, broadScopes: ["Mail.Read"], quadrant: "trusted_broad" },
    });
  });
});
