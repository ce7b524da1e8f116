import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  applyFieldMask,
  CHANGE,
  CHANGE_LIST,
  DRIVE,
  FILE,
  GLOBAL_PARAMETERS,
  invalidField,
  METHODS,
  parseFieldMask,
  PERMISSION,
  START_PAGE_TOKEN,
} from "./fake-google-schema";

// The fake's lists must be the Discovery documents' own. They live outside the repository (the
// shared vendor reference); VENDOR_APIS_DIR points elsewhere when needed.
const VENDOR_DIR = process.env.VENDOR_APIS_DIR ?? "/work/shared/reference/vendor-apis";
const haveDiscovery = existsSync(join(VENDOR_DIR, "drive.v3.json"));

type TDiscovery = {
  parameters: Record<string, unknown>;
  schemas: Record<string, { properties: Record<string, { properties?: Record<string, unknown> }> }>;
  resources: Record<
    string,
    { methods: Record<string, { parameters: Record<string, unknown>; scopes: string[] }> }
  >;
};
const load = (file: string) => JSON.parse(readFileSync(join(VENDOR_DIR, file), "utf8")) as TDiscovery;
const sorted = (list: Iterable<string>) => [...list].sort();

describe.skipIf(!haveDiscovery)("fake Google lists against the Discovery documents", () => {
  it("takes Drive's global parameters, and each method's parameters and scopes", () => {
    const driveDoc = load("drive.v3.json");
    const directory = load("admin.directory_v1.json");
    const reports = load("admin.reports_v1.json");
    expect(sorted(GLOBAL_PARAMETERS)).toEqual(sorted(Object.keys(driveDoc.parameters)));
    const documented = {
      "drive.files.list": driveDoc.resources.files?.methods.list,
      "drive.permissions.list": driveDoc.resources.permissions?.methods.list,
      "drive.drives.list": driveDoc.resources.drives?.methods.list,
      "drive.changes.getStartPageToken": driveDoc.resources.changes?.methods.getStartPageToken,
      "drive.changes.list": driveDoc.resources.changes?.methods.list,
      "directory.users.list": directory.resources.users?.methods.list,
      "directory.tokens.list": directory.resources.tokens?.methods.list,
      "directory.groups.list": directory.resources.groups?.methods.list,
      "directory.members.list": directory.resources.members?.methods.list,
      "directory.domains.list": directory.resources.domains?.methods.list,
      "reports.activities.list": reports.resources.activities?.methods.list,
    };
    for (const [id, method] of Object.entries(documented)) {
      const spec = METHODS[id as keyof typeof METHODS];
      expect(sorted(spec.parameters), id).toEqual(sorted(Object.keys(method?.parameters ?? {})));
      expect(sorted(spec.scopes), id).toEqual(sorted(method?.scopes ?? []));
    }
  });

  it("selects exactly the properties of File, Permission, Drive and their nested objects", () => {
    const { schemas } = load("drive.v3.json");
    expect(sorted(CHANGE.properties)).toEqual(sorted(Object.keys(schemas.Change?.properties ?? {})));
    expect(sorted(CHANGE_LIST.properties)).toEqual(sorted(Object.keys(schemas.ChangeList?.properties ?? {})));
    expect(sorted(START_PAGE_TOKEN.properties)).toEqual(
      sorted(Object.keys(schemas.StartPageToken?.properties ?? {})),
    );
    expect(sorted(FILE.properties)).toEqual(sorted(Object.keys(schemas.File?.properties ?? {})));
    expect(sorted(PERMISSION.properties)).toEqual(sorted(Object.keys(schemas.Permission?.properties ?? {})));
    expect(sorted(DRIVE.properties)).toEqual(sorted(Object.keys(schemas.Drive?.properties ?? {})));
    expect(sorted(DRIVE.nested?.restrictions?.properties ?? [])).toEqual(
      sorted(Object.keys(schemas.Drive?.properties.restrictions?.properties ?? {})),
    );
    expect(sorted(FILE.nested?.owners?.properties ?? [])).toEqual(
      sorted(Object.keys(schemas.User?.properties ?? {})),
    );
    expect(sorted(FILE.nested?.labelInfo?.nested?.labels?.properties ?? [])).toEqual(
      sorted(Object.keys(schemas.Label?.properties ?? {})),
    );
  });
});

describe("fields masks", () => {
  it("parses nesting and slashes, and finds the first undeclared name at any depth", () => {
    const tree = parseFieldMask("nextPageToken,files(id,owners(emailAddress),labelInfo/labels(id))");
    expect(tree).not.toBeNull();
    expect(
      invalidField(tree ?? new Map(), { properties: ["nextPageToken", "files"], nested: { files: FILE } }),
    ).toBe(null);
    const bad = parseFieldMask("files(id,owners(email))") ?? new Map();
    expect(invalidField(bad, { properties: ["files"], nested: { files: FILE } })).toBe("email");
    expect(parseFieldMask("files(id")).toBeNull();
  });

  it("keeps only the selected properties of objects and of each array item", () => {
    const tree = parseFieldMask("a,b(c)") ?? new Map();
    expect(applyFieldMask({ a: 1, b: [{ c: 2, d: 3 }], e: 4 }, tree)).toEqual({ a: 1, b: [{ c: 2 }] });
    expect(applyFieldMask({ a: { x: 1 } }, parseFieldMask("*") ?? new Map())).toEqual({ a: { x: 1 } });
  });
});

describe("the licensing method against its Discovery extract (kept in the repository)", () => {
  it("takes exactly listForProduct's parameters, scopes and the global parameters", async () => {
    const extract = (await import("./vendor/google-licensing-v1-extract.json", { with: { type: "json" } }))
      .default as {
      parameters: string[];
      methods: Record<string, { parameters: Record<string, unknown>; scopes: string[] }>;
    };
    const method = extract.methods["licensing.licenseAssignments.listForProduct"];
    const spec = METHODS["licensing.licenseAssignments.listForProduct"];
    expect(sorted(spec.parameters)).toEqual(sorted(Object.keys(method?.parameters ?? {})));
    expect(sorted(spec.scopes)).toEqual(sorted(method?.scopes ?? []));
    expect(sorted(GLOBAL_PARAMETERS)).toEqual(sorted(extract.parameters));
  });
});
