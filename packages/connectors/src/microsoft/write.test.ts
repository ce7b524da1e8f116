import { describe, expect, it } from "vitest";
import { evaluateAccess, MICROSOFT_ACCESS, MICROSOFT_WRITE_ACCESS } from "./access";
import { createMicrosoft365Writer } from "./write";

const writer = createMicrosoft365Writer({
  credentials: { tenantId: "t", clientId: "c", clientSecret: "s" },
  endpoints: { graphBaseUrl: "http://127.0.0.1:9", loginBaseUrl: "http://127.0.0.1:9" },
});

describe("Microsoft 365 writer, before any call", () => {
  it("says which changes can be put back", () => {
    const user = { id: "p", type: "user", role: "writer" } as const;
    expect(writer.reversibility("remove_external_user", user)).toEqual({ reversible: true });
    expect(writer.reversibility("downgrade_permission", user)).toEqual({ reversible: true });
    expect(writer.reversibility("revoke_oauth_grant")).toEqual({ reversible: true });
    for (const action of ["remove_public_link", "remove_external_domain", "transfer_ownership"] as const) {
      expect(writer.reversibility(action)).toMatchObject({
        reversible: false,
        reason: expect.any(String) as string,
      });
    }
    // SharePoint's "everyone" claim is a domain permission: no invitation brings it back.
    expect(
      writer.reversibility("remove_external_user", { id: "p", type: "domain", role: "reader" }),
    ).toMatchObject({
      reversible: false,
    });
  });

  it("keeps the writes out of the read list, and counts the broader permissions as granted", () => {
    const writes = MICROSOFT_WRITE_ACCESS.map((r) => r.permission);
    expect(MICROSOFT_ACCESS.filter((r) => writes.includes(r.permission))).toEqual([]);
    const roles = new Set(["Sites.ReadWrite.All", "Directory.ReadWrite.All"]);
    const checks = evaluateAccess(MICROSOFT_WRITE_ACCESS, () => roles, { premium: true });
    expect(checks.map((c) => [c.feature, c.granted])).toEqual([
      ["Remediation: file sharing", true],
      ["Remediation: app consent", true],
      ["Remediation: app permissions", false],
    ]);
    expect(checks[2]?.detail).toContain("AppRoleAssignment.ReadWrite.All");
  });
});
