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

describe("sensitivity labels", () => {
  const labelled = (
    id: string,
    permissions: Parameters<typeof file>[1],
    label: string | null,
    name?: string,
  ) => ({
    ...file(id, permissions, name),
    label,
  });

  it("makes a read-only public link CRITICAL on a Confidential or Highly Confidential file, not on a General one", () => {
    const pub = [{ type: "anyone" as const, role: "reader" as const }];
    const findings = only([
      labelled("none", pub, null),
      labelled("hc", pub, "Highly Confidential"),
      labelled("c", pub, "Confidential"),
      labelled("ts", pub, "Top Secret"),
      labelled("g", pub, "General"),
      labelled("i", pub, "Internal"),
    ]);
    expect(findings.map((f) => [f.resourceId, f.severity])).toEqual([
      ["none", "HIGH"],
      ["hc", "CRITICAL"],
      ["c", "CRITICAL"],
      ["ts", "CRITICAL"],
      ["g", "HIGH"],
      ["i", "HIGH"],
    ]);
    expect(findings[1]).toMatchObject({
      title: "Highly Confidential file shared with anyone who has the link",
      details: { label: "Highly Confidential", sensitivity: "high", sensitiveTerm: null },
    });
    expect(findings[0]?.details).toMatchObject({ label: null, sensitivity: "low" });
  });

  it("never lowers a sensitive name: a payroll sheet labelled General stays CRITICAL", () => {
    const [finding] = only([labelled("p", [{ type: "anyone", role: "reader" }], "General", "Payroll 2025")]);
    expect(finding).toMatchObject({
      severity: "CRITICAL",
      details: { label: "General", sensitiveTerm: "payroll" },
    });
  });

  it("raises an external share of a labelled confidential file one level, capped at CRITICAL", () => {
    const reader = [{ type: "user" as const, role: "reader" as const, emailAddress: "bob@gmail.com" }];
    const writer = [{ type: "user" as const, role: "writer" as const, emailAddress: "bob@gmail.com" }];
    const trustedReader = [
      { type: "user" as const, role: "reader" as const, emailAddress: "ann@partner.com" },
    ];
    const findings = only([
      labelled("r0", reader, null),
      labelled("r1", reader, "Confidential"),
      labelled("w0", writer, null),
      labelled("w1", writer, "Highly Confidential"),
      labelled("t0", trustedReader, null),
      labelled("t1", trustedReader, "Confidential"),
      labelled("g", reader, "General"),
    ]);
    expect(findings.map((f) => [f.resourceId, f.severity])).toEqual([
      ["r0", "MEDIUM"],
      ["r1", "HIGH"],
      ["w0", "HIGH"],
      ["w1", "CRITICAL"],
      ["t0", "LOW"],
      ["t1", "MEDIUM"],
      ["g", "MEDIUM"],
    ]);
    expect(findings[1]?.details).toMatchObject({ label: "Confidential", sensitivity: "high" });
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
    // The own domain is internal exposure (an organization-wide link), not an outside share.
    expect(findings.map((f) => [f.resourceId, f.ruleId, f.severity])).toEqual([
      ["dom", "external_share", "HIGH"],
      ["grp", "external_share", "MEDIUM"],
      ["own", "org_wide_link", "LOW"],
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

describe("repositories (GitHub)", () => {
  const repo = (
    id: string,
    permissions: Parameters<typeof file>[1],
    facet: { deployKeys: Array<{ id: string; title: string; readOnly: boolean }>; archived?: boolean },
    label: string | null = null,
  ) => ({
    ...file(id, permissions),
    name: id,
    mimeType: "application/vnd.github.repository",
    label,
    repository: {
      visibility: "private" as const,
      fork: false,
      archived: facet.archived ?? false,
      deployKeys: facet.deployKeys,
    },
  });

  it("says repository in its titles, rated by name and by the content signal", () => {
    const findings = only([
      repo("acme/docs", [{ type: "anyone", role: "reader" }], { deployKeys: [] }),
      repo("acme/infra-credentials", [{ type: "anyone", role: "reader" }], { deployKeys: [] }),
      repo(
        "acme/sdk",
        [{ type: "anyone", role: "reader" }],
        { deployKeys: [] },
        "Secret scanning alerts open",
      ),
    ]);
    expect(findings.map((f) => [f.resourceId, f.ruleId, f.severity, f.title])).toEqual([
      ["acme/docs", "public_link", "HIGH", "Public repository"],
      ["acme/infra-credentials", "public_link", "CRITICAL", "Public repository with a sensitive name"],
      ["acme/sdk", "public_link", "CRITICAL", "Public repository with secret scanning alerts open"],
    ]);
  });

  it("finds deploy keys that can push, one finding a repository, lower on an archived one", () => {
    const keys = [
      { id: "1", title: "ci", readOnly: false },
      { id: "2", title: "read", readOnly: true },
      { id: "3", title: "deploy", readOnly: false },
    ];
    const findings = only([
      repo("acme/api", [], { deployKeys: keys }),
      repo("acme/old", [], { deployKeys: keys, archived: true }),
      repo("acme/ro", [], { deployKeys: [{ id: "4", title: "read", readOnly: true }] }),
    ]);
    expect(findings.map((f) => [f.resourceId, f.ruleId, f.category, f.severity, f.title])).toEqual([
      ["acme/api", "deploy_key_write", "third_party_apps", "HIGH", "Deploy keys with write access"],
      ["acme/old", "deploy_key_write", "third_party_apps", "MEDIUM", "Deploy keys with write access"],
    ]);
    expect(findings[0]?.details).toMatchObject({
      keys: [
        { id: "1", title: "ci" },
        { id: "3", title: "deploy" },
      ],
      keyCount: 2,
      archived: false,
    });
  });
});
