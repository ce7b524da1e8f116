import { describe, expect, it } from "vitest";
import { mapPermission } from "./map";

describe("Drive permissions as links", () => {
  it("gives a domain permission its expiry and whether search finds the file", () => {
    expect(
      mapPermission({
        id: "d1",
        type: "domain",
        role: "writer",
        domain: "Example.com",
        allowFileDiscovery: true,
        expirationTime: "2027-03-01T12:00:00Z",
      }),
    ).toEqual({
      id: "d1",
      type: "domain",
      role: "writer",
      domain: "example.com",
      link: { expiresAt: "2027-03-01T12:00:00.000Z", discoverable: true },
    });
  });

  it("reads a link-only anyone permission without expiry as never expiring and not discoverable", () => {
    expect(
      mapPermission({ id: "anyoneWithLink", type: "anyone", role: "reader", allowFileDiscovery: false }),
    ).toEqual({
      id: "anyoneWithLink",
      type: "anyone",
      role: "reader",
      link: { expiresAt: null, discoverable: false },
    });
    expect(mapPermission({ id: "a2", type: "anyone", role: "reader" })).toEqual({
      id: "a2",
      type: "anyone",
      role: "reader",
      link: { expiresAt: null, discoverable: false },
    });
  });

  it("gives grants to people and groups no link", () => {
    expect(
      mapPermission({
        id: "u1",
        type: "user",
        role: "reader",
        emailAddress: "Ann@Example.com",
        expirationTime: "2027-03-01T12:00:00Z",
      }),
    ).toEqual({ id: "u1", type: "user", role: "reader", emailAddress: "ann@example.com" });
  });
});
