import { describe, expect, it } from "vitest";
import { type TGAppliedLabel } from "./api-types";
import { labelName, type TLabelCatalogue } from "./labels";

const catalogue: TLabelCatalogue = {
  ids: ["class", "hold", "project"],
  byId: new Map([
    [
      "class",
      {
        title: "Data classification",
        choices: new Map([
          ["pub", { name: "Public", badged: false }],
          ["conf", { name: "Confidential", badged: true }],
        ]),
      },
    ],
    ["hold", { title: "Legal hold", choices: new Map() }],
    ["project", { title: "Project", choices: new Map([["x", { name: "Apollo", badged: false }]]) }],
  ]),
};

const applied = (id: string, choice?: string): TGAppliedLabel => ({
  id,
  fields: choice ? { f: { valueType: "selection", selection: [choice] } } : {},
});

describe("labelName", () => {
  it("is the chosen choice of a selection field, else the label's title, else null", () => {
    expect(labelName([applied("class", "conf")], catalogue)).toBe("Confidential");
    expect(labelName([applied("hold")], catalogue)).toBe("Legal hold");
    expect(labelName([], catalogue)).toBeNull();
    expect(labelName(undefined, catalogue)).toBeNull();
    // Labels outside the published catalogue, or no catalogue at all (labels not read), name nothing.
    expect(labelName([applied("unknown")], catalogue)).toBeNull();
    expect(labelName([applied("class", "conf")], null)).toBeNull();
  });

  it("prefers a badged choice, then any choice, then a title, then the catalogue's order", () => {
    expect(labelName([applied("hold"), applied("project", "x"), applied("class", "conf")], catalogue)).toBe(
      "Confidential",
    );
    expect(labelName([applied("hold"), applied("project", "x")], catalogue)).toBe("Apollo");
    expect(labelName([applied("project"), applied("hold")], catalogue)).toBe("Legal hold");
    expect(labelName([applied("class", "pub"), applied("project", "x")], catalogue)).toBe("Public");
  });
});
