import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createReport, isPdf, safeText, themeOf } from "./index";

function check(pdf: Buffer): { text: string; pages: number } {
  const dir = mkdtempSync(join(tmpdir(), "pdf-test-"));
  const file = join(dir, "r.pdf");
  writeFileSync(file, pdf);
  execFileSync("qpdf", ["--check", file]);
  const text = execFileSync("pdftotext", ["-layout", file, "-"]).toString();
  const pages = (text.match(/\f/g) ?? []).length;
  return { text, pages };
}

describe("createReport", () => {
  it("writes a valid PDF with a cover, repeated table headers and Page X of Y", async () => {
    const r = createReport({
      title: "Test report",
      theme: themeOf({ accent: "#0E7C66", brandName: "Northwind MSP" }),
    });
    r.cover({ title: "Quarterly review", subtitle: "Acme", lines: ["Period: 30 days"] });
    r.heading("Findings").table({
      columns: [
        { header: "Sev", width: 1 },
        { header: "Title Column", width: 4 },
      ],
      rows: Array.from({ length: 120 }, (_, i) => ["HIGH", `Row ${i}`]),
    });
    r.lineChart({
      title: "Trend",
      points: [
        { label: "a", value: 10 },
        { label: "b", value: 90 },
      ],
      min: 0,
      max: 100,
    });
    r.barChart({ bars: [{ label: "identity", value: 5 }] });
    const pdf = await r.toBuffer();
    expect(isPdf(pdf)).toBe(true);
    const { text, pages } = check(pdf);
    expect(pages).toBeGreaterThanOrEqual(4);
    expect(text).toContain(`Page 1 of ${pages}`);
    expect(text).toContain(`Page ${pages} of ${pages}`);
    expect(text).toContain("Row 119");
    // The header row is drawn again on every page the table continues on.
    expect((text.match(/Title Column/g) ?? []).length).toBeGreaterThanOrEqual(pages - 2);
    expect(text).toContain("NORTHWIND MSP");
  });

  it("survives an unreadable logo and text outside WinAnsi", async () => {
    const r = createReport({
      title: "x",
      theme: themeOf({ brandName: "B", accent: "nope", logo: Buffer.from("not an image") }),
    });
    r.cover({ title: "Emoji 😀 name" }).paragraph("CJK 漢字\u0000 ok");
    const { text } = check(await r.toBuffer());
    expect(text).toContain("Emoji ? name");
    expect(text).toContain("CJK ?? ok");
  });

  it("an empty report is one numbered page", async () => {
    const { text } = check(await createReport({ title: "empty" }).toBuffer());
    expect(text).toContain("Page 1 of 1");
  });
});

describe("safeText", () => {
  it("keeps Latin-1 and WinAnsi punctuation, replaces the rest", () => {
    expect(safeText("Café – “quoted” €5 😀")).toBe("Café – “quoted” €5 ?");
  });
});
