import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import extract from "./vendor/google-discovery-extract.json" with { type: "json" };
import { invalidField, parseFieldMask } from "./fake-google-schema";
import {
  DIRECTORY_USERS,
  DISCOVERY_ROOTS,
  DRIVE_PERMISSION_BODY,
  extractSchemas,
  REPORTS_ACTIVITIES,
  type TDiscoverySchemas,
} from "./google-discovery";

// The extract the fake validates against is the Discovery documents' own structure: re-derived
// from the shared vendor reference (VENDOR_APIS_DIR elsewhere) it is the same, key for key.
const VENDOR_DIR = process.env.VENDOR_APIS_DIR ?? "/work/shared/reference/vendor-apis";
const haveDiscovery = existsSync(join(VENDOR_DIR, "admin.directory_v1.json"));
type TDoc = {
  schemas: TDiscoverySchemas;
  resources: Record<
    string,
    { methods: Record<string, { parameters: Record<string, { pattern?: string }> }> }
  >;
};
const load = (file: string) => JSON.parse(readFileSync(join(VENDOR_DIR, file), "utf8")) as TDoc;

describe.skipIf(!haveDiscovery)("the Discovery extract", () => {
  it("is what the Admin SDK, Reports and Drive documents declare", () => {
    const reports = load("admin.reports_v1.json");
    expect(extract).toEqual({
      directory: {
        schemas: extractSchemas(load("admin.directory_v1.json").schemas, DISCOVERY_ROOTS.directory),
      },
      reports: {
        schemas: extractSchemas(reports.schemas, DISCOVERY_ROOTS.reports),
        applicationNamePattern:
          reports.resources.activities?.methods.list?.parameters.applicationName?.pattern,
      },
      drive: { schemas: extractSchemas(load("drive.v3.json").schemas, DISCOVERY_ROOTS.drive) },
    });
  });
});

describe("shapes from the Discovery schemas", () => {
  const bad = (mask: string, shape: Parameters<typeof invalidField>[1]) =>
    invalidField(parseFieldMask(mask) ?? new Map(), shape);

  it("follow references, arrays of them and inline objects; a map takes any key", () => {
    expect(
      bad("kind,nextPageToken,users(id,primaryEmail,name(fullName),emails,isAdmin)", DIRECTORY_USERS),
    ).toBeNull();
    expect(bad("users(customSchemas(anySchema))", DIRECTORY_USERS)).toBeNull();
    expect(bad("users(name(nick))", DIRECTORY_USERS)).toBe("nick");
    expect(
      bad("items(id(time,applicationName),actor(email),events(name,type))", REPORTS_ACTIVITIES),
    ).toBeNull();
    expect(bad("items(id(when))", REPORTS_ACTIVITIES)).toBe("when");
  });

  it("give permissions.create's body the Permission's declared names", () => {
    expect(DRIVE_PERMISSION_BODY.properties).toContain("allowFileDiscovery");
    expect(DRIVE_PERMISSION_BODY.properties).not.toContain("sendNotificationEmail");
  });
});
