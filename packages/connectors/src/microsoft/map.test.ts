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
      { id: "p1:2", type: "domain", role: "reader", domain: "contoso.test", everyone: "members" },
      { id: "p1:3", type: "user", role: "reader", emailAddress: "alice@contoso.test" },
      { id: "p1:4", type: "group", role: "reader" },
    ]);
  });
});

describe("group grants", () => {
  const M365 = "0a11c0de-0000-4000-8000-000000000001";
  const SECURITY = "5ec0000d-0000-4000-8000-000000000002";
  const withGroups: TDirectory = {
    ...directory,
    groupById: (id) => ({ [M365]: "allcompany@contoso.test" })[id],
  };

  it("carry the group's mail, by object id or by SharePoint's group claim; none without one", () => {
    const permissions = mapMsPermission(
      {
        id: "g",
        roles: ["write"],
        grantedToIdentitiesV2: [
          { group: { id: M365, displayName: "All Company" } },
          {
            siteUser: {
              id: "21",
              displayName: "All Company Members",
              loginName: `c:0o.c|federateddirectoryclaimprovider|${M365.toUpperCase()}`,
            },
          },
          // The owners of a Microsoft 365 group are not the group.
          { siteUser: { id: "22", loginName: `c:0o.c|federateddirectoryclaimprovider|${M365}_o` } },
          // A security group without mail: a group grant, no address.
          { siteGroup: { id: "23", loginName: `c:0t.c|tenant|${SECURITY}` } },
        ],
      },
      "contoso.test",
      withGroups,
    );
    expect(permissions).toEqual([
      { id: "g:0", type: "group", role: "writer", emailAddress: "allcompany@contoso.test" },
      { id: "g:1", type: "group", role: "writer", emailAddress: "allcompany@contoso.test" },
      { id: "g:3", type: "group", role: "writer" },
    ]);
  });

  it("name no address when the directory's groups were not read", () => {
    expect(
      mapMsPermission(
        { id: "g", roles: ["read"], grantedToV2: { group: { id: M365 } } },
        "contoso.test",
        directory,
      ),
    ).toEqual([{ id: "g", type: "group", role: "reader" }]);
  });
});

describe("internal reach", () => {
  it("keeps an organization link on the tenant domain with its expiry, never discoverable", () => {
    expect(
      mapMsPermission(
        {
          id: "org1",
          roles: ["write"],
          link: { scope: "organization", type: "edit" },
          expirationDateTime: "2027-01-31T00:00:00Z",
        },
        "contoso.test",
        directory,
      ),
    ).toEqual([
      {
        id: "org1",
        type: "domain",
        role: "writer",
        domain: "contoso.test",
        link: { expiresAt: "2027-01-31T00:00:00.000Z", discoverable: false },
      },
    ]);
    expect(
      mapMsPermission(
        { id: "org2", roles: ["read"], link: { scope: "organization", type: "view" } },
        "contoso.test",
        directory,
      ),
    ).toEqual([
      {
        id: "org2",
        type: "domain",
        role: "reader",
        domain: "contoso.test",
        link: { expiresAt: null, discoverable: false },
      },
    ]);
  });

  it("gives an anonymous link its link facts", () => {
    expect(
      mapMsPermission(
        { id: "a1", roles: ["read"], link: { scope: "anonymous", type: "view" }, expirationDateTime: null },
        "contoso.test",
        directory,
      ),
    ).toEqual([{ id: "a1", type: "anyone", role: "reader", link: { expiresAt: null, discoverable: false } }]);
  });

  it("reads Everyone and Everyone except external users on a site group, a site user or a user", () => {
    const permissions = mapMsPermission(
      {
        id: "e",
        roles: ["write"],
        grantedToIdentitiesV2: [
          { siteGroup: { id: "4", displayName: "Everyone", loginName: "c:0(.s|true" } },
          {
            siteUser: {
              id: "5",
              displayName: "Everyone except external users",
              loginName: "c:0-.f|rolemanager|spo-grid-all-users/0b5c7d1e-2f3a-4b6c-8d9e-0f1a2b3c4d5e",
            },
          },
          { user: { displayName: "Everyone", loginName: "C:0(.S|TRUE" } },
        ],
      },
      "contoso.test",
      directory,
    );
    expect(permissions).toEqual([
      { id: "e:0", type: "domain", role: "writer", domain: "contoso.test", everyone: "all" },
      { id: "e:1", type: "domain", role: "writer", domain: "contoso.test", everyone: "members" },
      { id: "e:2", type: "domain", role: "writer", domain: "contoso.test", everyone: "all" },
    ]);
    expect(
      mapMsPermission(
        { id: "e3", roles: ["read"], grantedToV2: { siteGroup: { id: "6", loginName: "c:0(.s|true" } } },
        "contoso.test",
        directory,
      ),
    ).toEqual([{ id: "e3", type: "domain", role: "reader", domain: "contoso.test", everyone: "all" }]);
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
