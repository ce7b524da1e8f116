import { describe, expect, it } from "vitest";
import { collect } from "../../../fakes/src/adapter-harness";
import type { TSourceAdapter } from "../types";
import { createDemoAdapter, type TDemoOptions } from "./index";

// Named people (issue 33, item 5): the demo seed makes its sign-in users people of their tenant.
// The tenant is the same one, person for person, with those people's addresses swapped in.

const NOW = new Date("2025-06-01T12:00:00.000Z");
const base: TDemoOptions = { seed: "people", type: "microsoft_365", fileCount: 600, epoch: NOW, revision: 9 };
const PEOPLE = [
  { index: 0, email: "Owner@Acme.example" },
  { index: 8, email: "member@acme.example", name: "Acme Member" },
];

async function snapshot(adapter: TSourceAdapter) {
  return {
    workspace: await adapter.workspace(),
    users: await collect(adapter.users()),
    files: await collect(adapter.files()),
    grants: await collect(adapter.appGrants()),
    activity: await collect(adapter.activity(new Date(0))),
  };
}

describe("named people of a demo tenant", () => {
  it("carry the given address (and name) everywhere their generated one was, and nothing else moves", async () => {
    const plain = await snapshot(createDemoAdapter(base));
    const named = await snapshot(createDemoAdapter({ ...base, people: PEOPLE }));
    const was0 = plain.users[0]?.email ?? "";
    const was8 = plain.users[8]?.email ?? "";
    const swap = (s: string) =>
      s.split(was0).join("owner@acme.example").split(was8).join("member@acme.example");
    // Everything, once the two addresses are swapped: users, files and their permissions, grants, activity.
    expect(JSON.parse(swap(JSON.stringify({ ...plain, workspace: null })))).toEqual({
      ...named,
      workspace: null,
      users: named.users.map((u, i) => (i === 8 ? { ...u, name: plain.users[8]?.name } : u)),
    });
    expect(named.users[0]).toMatchObject({ email: "owner@acme.example", name: plain.users[0]?.name });
    expect(named.users[8]).toMatchObject({ email: "member@acme.example", name: "Acme Member" });
    // Their domain is one of the tenant's, after its own: what they share inside stays internal.
    expect(named.workspace).toEqual({
      domain: plain.workspace.domain,
      internalDomains: [...plain.workspace.internalDomains, "acme.example"],
    });
    // They own files and act, so what the product says of them is about something.
    const owned = named.files.filter((f) => f.ownerEmail === "owner@acme.example").length;
    const acted = named.activity.filter((e) => e.actorEmail === "member@acme.example").length;
    expect([owned, acted]).toEqual([75, 211]);
  });
});
