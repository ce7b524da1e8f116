import { describe, expect, it } from "vitest";
import { SourceAuthError, SourceUnavailableError, type TAccessRequirement } from "@posture/connectors";
import { settleAccess, toConnectorAccess } from "./connectors";

const USERS: TAccessRequirement = { feature: "Users", permission: "User.Read.All", impact: "no users" };
const MFA: TAccessRequirement = {
  feature: "MFA registration",
  permission: "AuditLog.Read.All",
  licence: "Entra ID P1",
  impact: "MFA unknown",
};
const REQUIREMENTS = [USERS, MFA];

describe("connect-time access", () => {
  it("splits the source's answer into granted and missing, keeping licence, impact and detail", async () => {
    const access = await settleAccess(
      async () => [
        { ...USERS, granted: true },
        { ...MFA, granted: false, detail: "403 Authorization_RequestDenied" },
      ],
      REQUIREMENTS,
      1_000,
    );
    expect(access).toEqual({
      granted: [{ feature: "Users", permission: "User.Read.All" }],
      missing: [
        {
          feature: "MFA registration",
          permission: "AuditLog.Read.All",
          licence: "Entra ID P1",
          impact: "MFA unknown",
          detail: "403 Authorization_RequestDenied",
        },
      ],
    });
  });

  it("marks every requirement unknown, saying why, when the source cannot be asked", async () => {
    const down = await settleAccess(
      async () => {
        throw new SourceUnavailableError("graph unavailable after 2 attempts (503)");
      },
      REQUIREMENTS,
      1_000,
    );
    expect(down.granted).toEqual([]);
    expect(down.missing.map((m) => [m.permission, m.detail])).toEqual([
      [
        "User.Read.All",
        "unknown: the source could not be reached (graph unavailable after 2 attempts (503))",
      ],
      [
        "AuditLog.Read.All",
        "unknown: the source could not be reached (graph unavailable after 2 attempts (503))",
      ],
    ]);
    const refused = await settleAccess(
      async () => {
        throw new SourceAuthError("invalid_client");
      },
      REQUIREMENTS,
      1_000,
    );
    expect(refused.missing[0]?.detail).toBe("unknown: the source refused the credentials (invalid_client)");
  });

  it("does not wait past its deadline for a source that never answers", async () => {
    const started = Date.now();
    const slow = await settleAccess(() => new Promise(() => {}), REQUIREMENTS, 50);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(slow.missing.map((m) => m.detail)).toEqual([
      "unknown: the source could not be reached (no answer within 50 ms)",
      "unknown: the source could not be reached (no answer within 50 ms)",
    ]);
    expect(toConnectorAccess([])).toEqual({ granted: [], missing: [] });
  });
});
