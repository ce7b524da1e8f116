import { beforeAll, describe, expect, it } from "vitest";
import { seedWorkspace } from "@posture/compliance/testing";
import { findings } from "@posture/db";
import { type TTestGateway, useTestGateway } from "../../testing";
import { errorCode, freshIp } from "../helpers";
import { fetchBytes, readPdf } from "../compliance/helpers";

// The portfolio report on demand (issue 17, item 2: reports take a group): the last complete
// week's or month's PDF, for every client or one group's.

const gw = useTestGateway();
type TActor = Awaited<ReturnType<TTestGateway["createActor"]>>;
let msp: TActor;
let groupId = "";

beforeAll(async () => {
  msp = await gw.createActor({ plan: "enterprise", isPartner: true });
  const ids: string[] = [];
  for (const [name, score] of [
    ["Harbor Dental", 64],
    ["Keystone Legal", 88],
  ] as const) {
    const org = await gw.createOrg({ plan: "business", name, managedByOrgId: msp.orgId });
    // A scan a day for two weeks: the last complete week has scores.
    const { connectorId } = await seedWorkspace(gw.db.db, {
      orgId: org.id,
      scores: Array.from({ length: 15 }, () => score),
    });
    ids.push(org.id);
    // Harbor Dental: three files everyone inside can open, found ten days ago (open all last week).
    if (name === "Harbor Dental")
      await gw.db.db.insert(findings).values(
        [0, 1, 2].map((i) => ({
          orgId: org.id,
          connectorId,
          connectorType: "google_workspace",
          fingerprint: `inside-${i}`,
          ruleId: "org_wide_link",
          category: "internal_exposure",
          severity: "MEDIUM" as const,
          severityRank: 2,
          title: "Organization-wide link",
          resourceId: `file-${i}`,
          resourceName: `Payroll ${i}.xlsx`,
          resourceType: "file",
          detectedAt: new Date(Date.now() - 10 * 86_400_000),
        })),
      );
  }
  const group = await gw.request("POST", "/api/partner/groups", {
    key: msp.key,
    ip: freshIp(),
    body: { name: "Healthcare" },
  });
  expect(group.status, group.text).toBe(201);
  groupId = (group.body as { id: string }).id;
  const set = await gw.request("PUT", `/api/partner/groups/${groupId}/clients`, {
    key: msp.key,
    ip: freshIp(),
    body: { clientOrgIds: [ids[0]] },
  });
  expect(set.status, set.text).toBe(200);
});

describe("GET /api/partner/reports/portfolio/pdf", () => {
  it("is every client's last week by default", async () => {
    const res = await fetchBytes(gw, "/api/partner/reports/portfolio/pdf", { key: msp.key });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    expect(res.headers.get("content-disposition")).toMatch(/portfolio-weekly-\d{4}-\d{2}-\d{2}\.pdf/);
    const { text } = readPdf(res.bytes);
    expect(text).toContain("Weekly portfolio report");
    expect(text).toContain("Harbor Dental");
    expect(text).toContain("Keystone Legal");
    // The internal exposure each client had open at the week's end, and the total.
    // The summary's figures: clients, average score, not scanned, open critical, open inside, need attention.
    expect(text).toMatch(/^\s*2\s+76\s+0\s+0\s+3\s+0\s*$/m);
    expect(text).toMatch(/Harbor Dental\s+64\s+\S+\s+\d+\s+\d+\s+3\b/);
    expect(text).toMatch(/Keystone Legal\s+88\s+\S+\s+\d+\s+\d+\s+0\b/);
  });

  it("takes a group: only its clients, its name on the cover", async () => {
    const res = await fetchBytes(gw, `/api/partner/reports/portfolio/pdf?period=MONTHLY&groupId=${groupId}`, {
      key: msp.key,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toMatch(
      /portfolio-monthly-\d{4}-\d{2}-01-healthcare\.pdf/,
    );
    const { text } = readPdf(res.bytes);
    expect(text).toContain("Monthly portfolio report");
    expect(text).toContain("Healthcare");
    expect(text).toContain("Harbor Dental");
    expect(text).not.toContain("Keystone Legal");
  });

  it("404 for another partner's group, 400 for a bad period, 403 for a non-partner", async () => {
    const rival = await gw.createActor({ plan: "enterprise", isPartner: true });
    const foreign = await gw.request("GET", `/api/partner/reports/portfolio/pdf?groupId=${groupId}`, {
      key: rival.key,
      ip: freshIp(),
    });
    expect(errorCode(foreign)).toBe("not_found");
    const bad = await gw.request("GET", "/api/partner/reports/portfolio/pdf?period=DAILY", {
      key: msp.key,
      ip: freshIp(),
    });
    expect(errorCode(bad)).toBe("invalid_input");
    const plain = await gw.createActor({ plan: "enterprise" });
    const refused = await gw.request("GET", "/api/partner/reports/portfolio/pdf", {
      key: plain.key,
      ip: freshIp(),
    });
    expect(errorCode(refused)).toBe("partner_required");
  });
});
