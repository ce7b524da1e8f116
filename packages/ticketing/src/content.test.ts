import { describe, expect, it } from "vitest";
import { adfDescription, markdownDescription, ticketTitle } from "./content";
import { isValidAdf, sampleFinding } from "../../fakes/src/trackers";

describe("ticketTitle", () => {
  it("names severity, finding and resource", () => {
    expect(ticketTitle(sampleFinding())).toBe("[HIGH] Public link on 'Payroll.xlsx'");
  });

  it("does not repeat a resource the finding title already names", () => {
    expect(ticketTitle(sampleFinding({ title: "Payroll.xlsx is shared publicly" }))).toBe(
      "[HIGH] Payroll.xlsx is shared publicly",
    );
  });

  it("stays on one line and within Jira's 255 characters", () => {
    const title = ticketTitle(sampleFinding({ title: "Public\nlink", resourceName: "x".repeat(400) }));
    expect(title).not.toMatch(/[\r\n]/);
    expect(title.length).toBe(255);
    expect(title.startsWith("[HIGH] Public link on 'xxx")).toBe(true);
  });
});

describe("markdownDescription", () => {
  it("puts workspace-controlled values in code spans so they cannot mention or format", () => {
    const text = markdownDescription(sampleFinding({ resourceName: "@everyone **urgent** `x`" }));
    expect(text).toContain("- **Resource:** `` @everyone **urgent** `x` ``");
  });

  it("links back to the finding and lists details", () => {
    const text = markdownDescription(
      sampleFinding({ details: { sharedWith: "anyone", views: 12, empty: null } }),
    );
    expect(text).toContain("- **Finding:** <https://posture.example.com/findings/fnd_01HZX3>");
    expect(text).toContain("- **sharedWith:** `anyone`");
    expect(text).toContain("- **views:** `12`");
    expect(text).not.toContain("empty");
  });

  it("does not link a link that is not http(s)", () => {
    const text = markdownDescription(sampleFinding({ link: "javascript:alert(1)" }));
    expect(text).toContain("- **Finding:** `javascript:alert(1)`");
  });
});

describe("adfDescription", () => {
  it("is a valid ADF document even with empty values", () => {
    const doc = adfDescription(
      sampleFinding({ resourceName: "", connectorType: "", link: "", details: { a: {} } }),
    );
    expect(isValidAdf(doc)).toBe(true);
    expect(JSON.stringify(doc)).not.toContain('"text":""');
  });

  it("marks the finding link as a link", () => {
    const doc = adfDescription(sampleFinding());
    expect(JSON.stringify(doc)).toContain(
      '{"type":"text","text":"https://posture.example.com/findings/fnd_01HZX3","marks":[{"type":"link","attrs":{"href":"https://posture.example.com/findings/fnd_01HZX3"}}]}',
    );
  });
});
