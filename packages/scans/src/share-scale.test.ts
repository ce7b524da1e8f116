import { describe, expect, it } from "vitest";
import { SENSITIVE_WORDS } from "@posture/db";
import { baseSeverity, sensitivityOf } from "@posture/workspace";
import { engine, file } from "@posture/posture/testing";

// The rule engine (findings) and the resource store (sharing items) rate the same share on one
// scale: a file's public link gets the same severity from both, whatever its name or role.

/** Every sensitive word (the union of the two lists the engine and the store used to keep), and a few that are not. */
const NAMES = [...SENSITIVE_WORDS.high, ...SENSITIVE_WORDS.medium, "syntax", "notes", "contractor"].flatMap(
  (w) => [`${w}.xlsx`, `Q3 ${w.toUpperCase()} v2`, `team${w[0]?.toUpperCase()}${w.slice(1)}Sheet`],
);

const ROLES = ["reader", "commenter", "writer", "organizer", "owner"] as const;

describe("one share scale", () => {
  it("a public link is rated the same by the rule engine and the resource store", () => {
    const mismatches: string[] = [];
    for (const role of ROLES) {
      const e = engine();
      NAMES.forEach((name, i) => e.addFile(file(`f${i}`, [{ type: "anyone", role }], name)));
      const findings = new Map(e.findings().map((f) => [f.resourceId, f.severity]));
      NAMES.forEach((name, i) => {
        const engineSays = findings.get(`f${i}`);
        const storeSays = baseSeverity("public", role, sensitivityOf(name));
        if (engineSays !== storeSays)
          mismatches.push(`${role} "${name}": engine ${engineSays}, store ${storeSays}`);
      });
    }
    expect(mismatches).toEqual([]);
  });

  it("a labelled file's public link and outside grants are rated the same by both", () => {
    const LABELS = [
      null,
      "Highly Confidential",
      "Confidential",
      "General",
      "Internal",
      "Public",
      "Top Secret",
    ];
    const mismatches: string[] = [];
    for (const role of ROLES)
      for (const name of ["Quarterly plan", "Payroll 2025", "Q3 budget"])
        LABELS.forEach((label, i) => {
          const e = engine([]);
          e.addFile({ ...file(`p${i}`, [{ type: "anyone", role }], name), label });
          e.addFile({
            ...file(`x${i}`, [{ type: "user", role, emailAddress: "bob@gmail.com" }], name),
            label,
          });
          const [pub, ext] = e.findings();
          const sensitivity = sensitivityOf(name, label === null ? [] : [label]);
          const store = [
            baseSeverity("public", role, sensitivity),
            baseSeverity("external_user", role, sensitivity),
          ];
          if (pub?.severity !== store[0] || ext?.severity !== store[1])
            mismatches.push(
              `${role} "${name}" ${label}: engine ${pub?.severity}/${ext?.severity}, store ${store.join("/")}`,
            );
        });
    expect(mismatches).toEqual([]);
  });

  it("an outside grant on an ordinary file is rated the same by both", () => {
    for (const role of ROLES) {
      const e = engine();
      e.addFile(file("g", [{ type: "user", role, emailAddress: "bob@gmail.com" }], "Quarterly plan"));
      const [finding] = e.findings();
      expect(finding?.severity).toBe(baseSeverity("external_user", role, sensitivityOf("Quarterly plan")));
    }
  });
});
