import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { engine, file } from "./test-fixtures";

function only(files: ReturnType<typeof file>[], trusted?: string[]) {
  const e = engine(trusted);
  for (const f of files) e.addFile(f);
  return e.findings();
}

describe("public link rule", () => {
  it("is HIGH for a read-only link on an ordinary file", () => {
    const [finding] = only([file("f1", [{ type: "anyone", role: "reader" }])]);
    expect(finding).toMatchObject({
      ruleId: "public_link",
      category: "public_exposure",
      severity: "HIGH",
      resourceId: "f1",
      resourceName: "Quarterly plan",
      resourceType: "file",
    });
  });

  it("is CRITICAL when the link lets anyone edit or comment", () => {
    const findings = only([
      file("w", [{ type: "anyone", role: "writer" }]),
      file("c", [{ type: "anyone", role: "commenter" }]),
    ]);
    expect(findings.map((f) => [f.resourceId, f.severity])).toEqual([
      ["w", "CRITICAL"],
      ["c", "CRITICAL"],
    ]);
  });

  it("is CRITICAL for a read-only link when the name looks sensitive", () => {
    const names = [
      "Payroll2024.xlsx",
      "customerPasswords",
      "Vendor Contract v2.pdf",
      "CONFIDENTIAL memo",
      "ssn_list.csv",
      "Invoice INV-1",
    ];
    const findings = only(names.map((name, i) => file(`s${i}`, [{ type: "anyone", role: "reader" }], name)));
    expect(findings.map((f) => f.severity)).toEqual(names.map(() => "CRITICAL"));
    expect(findings[0]?.details.sensitiveTerm).toBe("payroll");
  });

  it("does not take words that merely contain a sensitive term as sensitive", () => {
    const findings = only([
      file("x", [{ type: "anyone", role: "reader" }], "Syntax guide (contractor onboarding)"),
    ]);
    expect(findings[0]?.severity).toBe("HIGH");
  });

  it("yields one finding per file however many public grants it has", () => {
    const findings = only([
      file("f", [
        { type: "anyone", role: "reader" },
        { type: "anyone", role: "writer" },
      ]),
    ]);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ severity: "CRITICAL", details: { role: "writer" } });
  });
});

describe("external sharing rule", () => {
  it("is MEDIUM for readers and commenters outside, HIGH for writers and owners", () => {
    const findings = only([
      file("r", [{ type: "user", role: "reader", emailAddress: "bob@gmail.com" }]),
      file("c", [{ type: "user", role: "commenter", emailAddress: "bob@gmail.com" }]),
      file("w", [{ type: "user", role: "writer", emailAddress: "bob@gmail.com" }]),
      file("o", [{ type: "user", role: "owner", emailAddress: "bob@gmail.com" }]),
    ]);
    expect(findings.map((f) => [f.resourceId, f.ruleId, f.severity])).toEqual([
      ["r", "external_share", "MEDIUM"],
      ["c", "external_share", "MEDIUM"],
      ["w", "external_share", "HIGH"],
      ["o", "external_share", "HIGH"],
    ]);
  });

  it("lowers a share to a trusted domain one level, never below LOW", () => {
    const findings = only([
      file("tw", [{ type: "user", role: "writer", emailAddress: "ann@partner.com" }]),
      file("tr", [{ type: "user", role: "reader", emailAddress: "ann@partner.com" }]),
      file("sub", [{ type: "user", role: "reader", emailAddress: "ann@eu.partner.com" }]),
    ]);
    expect(findings.map((f) => f.severity)).toEqual(["MEDIUM", "LOW", "LOW"]);
    expect(findings[0]?.details.trustedOnly).toBe(true);
  });

  it("rates a file shared to trusted and untrusted outsiders by its worst grant", () => {
    const findings = only([
      file("mix", [
        { type: "user", role: "writer", emailAddress: "ann@partner.com" },
        { type: "user", role: "reader", emailAddress: "eve@outlook.com" },
      ]),
    ]);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({
      severity: "MEDIUM",
      details: { externalDomains: ["outlook.com", "partner.com"], targetCount: 2, trustedOnly: false },
    });
  });

  it("counts a domain-wide grant to an outside domain, and a group outside, but not internal ones", () => {
    const findings = only([
      file("dom", [{ type: "domain", role: "writer", domain: "startup.io" }]),
      file("grp", [{ type: "group", role: "reader", emailAddress: "all@vendor.net" }]),
      file("own", [{ type: "domain", role: "reader", domain: "acme.com" }]),
      file("subsidiary", [{ type: "user", role: "writer", emailAddress: "kim@eu.acme.com" }]),
      file("internal", [{ type: "user", role: "writer", emailAddress: "KIM@ACME.COM" }]),
    ]);
    expect(findings.map((f) => [f.resourceId, f.severity])).toEqual([
      ["dom", "HIGH"],
      ["grp", "MEDIUM"],
    ]);
  });

  it("no longer lowers a domain once it is not trusted", () => {
    const share = file("t", [{ type: "user", role: "reader", emailAddress: "ann@partner.com" }]);
    expect(only([share])[0]?.severity).toBe("LOW");
    expect(only([share], [])[0]?.severity).toBe("MEDIUM");
  });
});

describe("findings per file", () => {
  it("reports a public and an external file as two findings with distinct fingerprints", () => {
    const findings = only([
      file("both", [
        { type: "anyone", role: "reader" },
        { type: "user", role: "reader", emailAddress: "x@gmail.com" },
      ]),
    ]);
    expect(findings.map((f) => f.ruleId)).toEqual(["public_link", "external_share"]);
    expect(new Set(findings.map((f) => f.fingerprint)).size).toBe(2);
  });

  it("fingerprints sha256(ruleId:resourceId), independent of severity, engine and time", () => {
    const a = only([file("f9", [{ type: "anyone", role: "reader" }])])[0];
    const b = only([file("f9", [{ type: "anyone", role: "writer" }], "Payroll")])[0];
    const expected = createHash("sha256").update("public_link:f9").digest("hex");
    expect(a?.fingerprint).toBe(expected);
    expect(b?.fingerprint).toBe(expected);
    expect(a?.severity).not.toBe(b?.severity);
  });

  it("keeps one finding when the same file is read twice", () => {
    const findings = only([
      file("dup", [{ type: "anyone", role: "reader" }]),
      file("dup", [{ type: "anyone", role: "reader" }]),
    ]);
    expect(findings).toHaveLength(1);
  });

  it("finds nothing on a file shared only inside", () => {
    expect(only([file("in", [{ type: "user", role: "writer", emailAddress: "a@acme.com" }])])).toEqual([]);
  });
});
