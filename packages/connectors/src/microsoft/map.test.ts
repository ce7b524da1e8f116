import { describe, expect, it } from "vitest";
import { loginEmail, mapMsPermission, msPublisher, type TDirectory } from "./map";

const directory: TDirectory = {
  // "7" is an Entra object id here on purpose: a SharePoint number must never be looked up as one.
  byId: (id) => ({ "m-alice": "alice@contoso.test", "7": "wrong@contoso.test" })[id ?? ""],
  byLogin: (upn) =>
    ({
      "alice@contoso.test": "alice@contoso.test",
      "guest_partner.example#ext#@contoso.onmicrosoft.com": "guest.mail@partner.example",
    })[upn],
};

describe("SharePoint identities", () => {
  it("resolve a member, a B2B guest and an external user by login name", () => {
    expect(loginEmail("i:0#.f|membership|Alice@Contoso.test", directory)).toBe("alice@contoso.test");
    // A guest in the directory: their mail; one the app cannot see: decoded from the guest UPN.
    expect(
      loginEmail("i:0#.f|membership|guest_partner.example#EXT#@contoso.onmicrosoft.com", directory),
    ).toBe("guest.mail@partner.example");
    expect(loginEmail("i:0#.f|membership|pm_vendor.example#ext#@contoso.onmicrosoft.com", directory)).toBe(
      "pm@vendor.example",
    );
    expect(loginEmail("i:0#.f|membership|urn%3aspo%3aguest#Ext@Partner.example", directory)).toBe(
      "ext@partner.example",
    );
    expect(loginEmail("c:0t.c|tenant|5f8c1a2b", directory)).toBeUndefined();
  });

  it("never look a SharePoint id up in the directory, and read the everyone claim as the domain", () => {
    const permissions = mapMsPermission(
      {
        id: "p1",
        roles: ["read"],
        grantedToIdentitiesV2: [
          { siteUser: { id: "7", displayName: "Alice", loginName: "i:0#.f|membership|alice@contoso.test" } },
          { siteUser: { id: "8", displayName: "No login" } },
          { siteUser: { id: "9", loginName: "c:0-.f|rolemanager|spo-grid-all-users/1111" } },
          { user: { id: "m-alice", displayName: "Alice" } },
          { siteGroup: { id: "3", displayName: "Team Members", loginName: "Team Members" } },
        ],
      },
      "contoso.test",
      directory,
    );
    expect(permissions).toEqual([
      { id: "p1:0", type: "user", role: "reader", emailAddress: "alice@contoso.test" },
      { id: "p1:2", type: "domain", role: "reader", domain: "contoso.test" },
      { id: "p1:3", type: "user", role: "reader", emailAddress: "alice@contoso.test" },
      { id: "p1:4", type: "group", role: "reader" },
    ]);
  });
});

describe("publisher from v1.0 properties", () => {
  it("names a verified publisher, Microsoft, this organization, or no one", () => {
    const tenant = "11111111-2222-3333-4444-555555555555";
    expect(
      msPublisher({ verifiedPublisher: { displayName: "OpenAI", verifiedPublisherId: "601" } }, tenant),
    ).toEqual({ publisher: "OpenAI", isKnownPublisher: true });
    expect(msPublisher({ appOwnerOrganizationId: "f8cdef31-a31e-4b4a-93e4-5f571e91255a" }, tenant)).toEqual({
      publisher: "Microsoft",
      isKnownPublisher: true,
    });
    expect(msPublisher({ appOwnerOrganizationId: tenant }, tenant)).toEqual({
      publisher: "This organization",
      isKnownPublisher: false,
    });
    // An unverified name is not shown as if it were verified.
    expect(
      msPublisher({ verifiedPublisher: { displayName: "Claimed", verifiedPublisherId: null } }, tenant),
    ).toEqual({ publisher: "Unknown publisher", isKnownPublisher: false });
  });
});
