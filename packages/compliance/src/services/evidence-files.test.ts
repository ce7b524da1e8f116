import { describe, expect, it } from "vitest";
import { safeEntryName } from "./evidence-builder";
import { csvField, csvLine } from "@posture/platform";

describe("evidence entry names and CSV", () => {
  it("turns control ids into safe entry names", () => {
    expect(safeEntryName("Art. 5(1)(f)")).toBe("Art._5_1_f");
    expect(safeEntryName("164.308(a)(1)(ii)(A)")).toBe("164.308_a_1_ii_A");
    expect(safeEntryName("../../etc/passwd")).toBe("etc_passwd");
    expect(safeEntryName("..")).toBe("control");
  });

  it("quotes per RFC 4180 and defuses spreadsheet formulas", () => {
    expect(csvField('a "b", c')).toBe('"a ""b"", c"');
    expect(csvField("=HYPERLINK(1)")).toBe("'=HYPERLINK(1)");
    expect(csvField(null)).toBe("");
    expect(csvLine(["x", 1, true])).toBe("x,1,true\r\n");
  });
});
