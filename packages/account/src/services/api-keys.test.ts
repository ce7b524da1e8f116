import { describe, expect, it } from "vitest";
import { keyStatus } from "./api-keys";

const now = new Date("2030-01-01T12:00:00Z");
const at = (offsetMs: number) => new Date(now.getTime() + offsetMs);

describe("keyStatus", () => {
  it("is active without revocation and before expiry", () => {
    expect(keyStatus({ revokedAt: null, expiresAt: null }, now)).toBe("active");
    expect(keyStatus({ revokedAt: null, expiresAt: at(1) }, now)).toBe("active");
  });

  it("is expired from the expiry instant on", () => {
    expect(keyStatus({ revokedAt: null, expiresAt: at(0) }, now)).toBe("expired");
    expect(keyStatus({ revokedAt: null, expiresAt: at(-1) }, now)).toBe("expired");
  });

  it("reports revocation over expiry", () => {
    expect(keyStatus({ revokedAt: at(-10), expiresAt: at(-1) }, now)).toBe("revoked");
    expect(keyStatus({ revokedAt: at(-10), expiresAt: null }, now)).toBe("revoked");
  });
});
