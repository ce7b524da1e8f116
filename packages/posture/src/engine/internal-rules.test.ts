import { describe, expect, it } from "vitest";
import type { TSourceGroup } from "@posture/connectors";
import { collectingEngine, file, INTERNAL, NOW, TRUSTED, user } from "./test-fixtures";

const ALL_STAFF: TSourceGroup = {
  id: "g1",
  email: "all-staff@acme.com",
  name: "All Staff",
  memberCount: 1_200,
};
const TEAM: TSourceGroup = {
  id: "g2",
  email: "finance@acme.com",
  name: "Finance",
  memberCount: 3,
  memberEmails: ["ann@acme.com", "bob@acme.com", "owner@acme.com"],
};

function scan(files: ReturnType<typeof file>[], opts: { threshold?: number; users?: number } = {}) {
  const e = collectingEngine({
    internalDomains: INTERNAL,
    trustedDomains: TRUSTED,
    now: NOW,
    groups: [ALL_STAFF, TEAM],
    ...(opts.threshold === undefined ? {} : { broadGroupThreshold: opts.threshold }),
  });
  for (let i = 0; i < (opts.users ?? 40); i++)
    e.addUser(user(`u${i}`, { email: `u${i}@acme.com`, mfaEnabled: true }));
  // A suspended account is not one of the tenant's people.
  e.addUser(user("gone", { email: "gone@acme.com", mfaEnabled: true, suspended: true }));
  for (const f of files) e.addFile(f);
  return e.findings().filter((f) => f.category === "internal_exposure");
}

const link = (expiresAt: string | null, discoverable = false) => ({ expiresAt, discoverable });

describe("organization-wide links", () => {
  it("rate by sensitivity, then editing, search and expiry, with the agreed details", () => {
    const findings = scan([
      file("plain", [{ type: "domain", role: "reader", domain: "acme.com", link: link(null) }]),
      file("pay", [{ type: "domain", role: "reader", domain: "acme.com", link: link(null) }], "Payroll 2025"),
      file(
        "pay-edit",
        [{ type: "domain", role: "writer", domain: "acme.com", link: link(null, true) }],
        "Payroll",
      ),
      file(
        "pay-expiring",
        [{ type: "domain", role: "reader", domain: "EU.acme.com", link: link("2025-07-01T00:00:00.000Z") }],
        "Payroll",
      ),
    ]);
    expect(findings.map((f) => [f.resourceId, f.ruleId, f.severity])).toEqual([
      ["plain", "org_wide_link", "LOW"],
      ["pay", "org_wide_link", "HIGH"],
      ["pay-edit", "org_wide_link", "CRITICAL"],
      ["pay-expiring", "org_wide_link", "MEDIUM"],
    ]);
    expect(findings[2]).toMatchObject({
      title: "Sensitive file editable to everyone in the organization with the link",
      details: {
        ownerEmail: "owner@acme.com",
        label: null,
        sensitivity: "high",
        sensitiveTerm: "payroll",
        permissionIds: ["pay-edit-0"],
        reach: { people: 40, orgWide: true },
        links: [{ permissionId: "pay-edit-0", role: "writer", discoverable: true, expiresAt: null }],
      },
    });
  });

  it("takes the label before the name", () => {
    const [finding] = scan([
      {
        ...file("lab", [{ type: "domain", role: "reader", domain: "acme.com", link: link(null) }]),
        label: "Confidential",
      },
    ]);
    expect(finding).toMatchObject({
      severity: "HIGH",
      details: { label: "Confidential", sensitivity: "high" },
    });
  });
});

describe("grants to everyone", () => {
  it("are org_wide_grant, one level above a link (search finds them), with the claim in the details", () => {
    const findings = scan([
      file("ev", [{ type: "domain", role: "reader", domain: "acme.com", everyone: "members" }]),
      file("ev-pay", [{ type: "domain", role: "writer", domain: "acme.com", everyone: "all" }], "Salaries"),
    ]);
    expect(findings.map((f) => [f.resourceId, f.ruleId, f.severity, f.title])).toEqual([
      ["ev", "org_wide_grant", "MEDIUM", "File shared with everyone in the organization"],
      [
        "ev-pay",
        "org_wide_grant",
        "CRITICAL",
        "Sensitive file editable by everyone in the organization (guests included)",
      ],
    ]);
    expect(findings[1]?.details).toMatchObject({
      permissionIds: ["ev-pay-0"],
      reach: { people: 40, orgWide: true },
      grants: [{ permissionId: "ev-pay-0", role: "writer", everyone: "all" }],
    });
  });

  it("gives one finding per rule when a file has both a link and an everyone grant", () => {
    const findings = scan([
      file("both", [
        { type: "domain", role: "reader", domain: "acme.com", link: link(null) },
        { type: "domain", role: "reader", domain: "acme.com", everyone: "members" },
        { type: "domain", role: "reader", domain: "acme.com", link: link(null) },
      ]),
    ]);
    expect(findings.map((f) => [f.ruleId, f.details.permissionIds])).toEqual([
      ["org_wide_link", ["both-0", "both-2"]],
      ["org_wide_grant", ["both-1"]],
    ]);
  });
});

describe("grants to broad groups", () => {
  it("flag a group at or above the threshold, with its size, and count reach once per person", () => {
    const findings = scan(
      [
        file("big", [{ type: "group", role: "writer", emailAddress: "All-Staff@acme.com" }], "HR review"),
        file("small", [{ type: "group", role: "reader", emailAddress: "finance@acme.com" }]),
      ],
      {},
    );
    expect(findings.map((f) => [f.resourceId, f.ruleId, f.severity, f.title])).toEqual([
      ["big", "broad_group_grant", "HIGH", "File editable by a group of 1,200 people"],
    ]);
    expect(findings[0]?.details).toMatchObject({
      sensitivity: "medium",
      permissionIds: ["big-0"],
      // Only the count is known: the owner plus 1,200.
      reach: { people: 1_201, orgWide: false },
      groups: [{ permissionId: "big-0", email: "all-staff@acme.com", role: "writer", memberCount: 1_200 }],
    });
  });

  it("follow the organization's threshold", () => {
    const findings = scan(
      [file("small", [{ type: "group", role: "reader", emailAddress: "finance@acme.com" }])],
      {
        threshold: 3,
      },
    );
    expect(findings).toHaveLength(1);
    // Listed members: the owner is one of them, so three people in all.
    expect(findings[0]?.details).toMatchObject({ reach: { people: 3, orgWide: false } });
  });

  it("ignore groups outside and groups the directory does not list", () => {
    expect(
      scan([
        file("out", [{ type: "group", role: "reader", emailAddress: "all-staff@vendor.net" }]),
        file("unknown", [{ type: "group", role: "reader", emailAddress: "everybody@acme.com" }]),
      ]),
    ).toEqual([]);
  });
});
