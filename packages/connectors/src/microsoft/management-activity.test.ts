import { describe, expect, it } from "vitest";
import { azureAdRecord, sharePointRecord } from "../../../fakes/src/fake-o365-activity";
import { mapO365Record } from "./management-activity";

const INTERNAL = ["contoso.test", "contoso.onmicrosoft.com"];
const AT = "2026-11-24T10:15:00Z";

const sp = (operation: string, extra: Partial<Parameters<typeof sharePointRecord>[0]> = {}) =>
  mapO365Record(
    sharePointRecord({ id: "r1", at: AT, user: "Alice@Contoso.test", operation, ...extra }),
    INTERNAL,
  );

describe("mapO365Record", () => {
  it("maps SharePoint and OneDrive file operations to access, download and delete", () => {
    const base = { id: "r1", at: "2026-11-24T10:15:00.000Z", actorEmail: "alice@contoso.test" };
    const resourceId = "li-report.xlsx";
    expect(sp("FileAccessed")).toEqual({ ...base, type: "file_access", resourceId });
    expect(sp("FilePreviewed")?.type).toBe("file_access");
    expect(sp("FileDownloaded")).toEqual({ ...base, type: "download", resourceId });
    expect(sp("FileSyncDownloadedFull")?.type).toBe("download");
    // Audit.General: Power BI reports exported or downloaded.
    expect(sp("ExportReport")?.type).toBe("download");
    for (const op of ["FileDeleted", "FileRecycled", "FileDeletedFirstStageRecycleBin"])
      expect(sp(op)).toEqual({ ...base, type: "file_delete", resourceId });
    expect(sp("FileModified")).toBeNull();
  });

  it("reads CreationTime, which carries no zone, as UTC", () => {
    const record = sharePointRecord({ id: "r1", at: AT, user: "a@contoso.test", operation: "FileAccessed" });
    expect(record.CreationTime).toBe("2026-11-24T10:15:00");
    expect(mapO365Record(record, INTERNAL)?.at).toBe("2026-11-24T10:15:00.000Z");
  });

  it("keeps shares to outsiders only, naming the outside target", () => {
    expect(sp("AnonymousLinkCreated")).toMatchObject({ type: "share_external", target: "anyone" });
    expect(sp("SharingSet", { target: "Bob@Partner.example", targetType: "Guest" })).toMatchObject({
      type: "share_external",
      target: "bob@partner.example",
    });
    expect(sp("SharingInvitationCreated", { target: "eve@gmail.example" })?.target).toBe("eve@gmail.example");
    // A guest named by the UPN the tenant gave them.
    expect(
      sp("AddedToSecureLink", {
        target: "ann_partner.example#EXT#@contoso.onmicrosoft.com",
        targetType: "Guest",
      })?.target,
    ).toBe("ann@partner.example");
    // Inside the tenant, or a company-wide link: not external.
    expect(sp("SharingSet", { target: "carol@contoso.test", targetType: "Member" })).toBeNull();
    expect(sp("SharingSet", { target: "Finance Members", targetType: "SharePointGroup" })).toBeNull();
    expect(sp("CompanyLinkCreated")).toBeNull();
  });

  it("maps Entra sign-ins and consents, the consent's target being the application id", () => {
    const login = azureAdRecord({ id: "l1", at: AT, user: "bob@contoso.test", operation: "UserLoggedIn" });
    expect(mapO365Record(login, INTERNAL)).toEqual({
      id: "l1",
      at: "2026-11-24T10:15:00.000Z",
      actorEmail: "bob@contoso.test",
      type: "login",
    });
    const failed = azureAdRecord({
      id: "l2",
      at: AT,
      user: "bob@contoso.test",
      operation: "UserLoggedIn",
      resultStatus: "Failed",
    });
    expect(mapO365Record(failed, INTERNAL)).toBeNull();
    const appId = "0f6e1b5c-7c3a-4c55-9d7e-2a1b3c4d5e6f";
    const consent = azureAdRecord({
      id: "c1",
      at: AT,
      user: "bob@contoso.test",
      operation: "Consent to application.",
      appId,
    });
    expect(mapO365Record(consent, INTERNAL)).toMatchObject({ type: "oauth_grant", target: appId });
    // Without the service principal names, a GUID target still names the app.
    const bare = { ...consent, ModifiedProperties: [], Target: [{ ID: appId.toUpperCase(), Type: 2 }] };
    expect(mapO365Record(bare, INTERNAL)?.target).toBe(appId);
  });

  it("skips system and application actors, and records without an id or time", () => {
    expect(sp("FileAccessed", { user: "app@sharepoint" })).toBeNull();
    expect(sp("FileAccessed", { user: "SHAREPOINT\\system" })).toBeNull();
    expect(sp("FileAccessed", { userType: 5 })).toBeNull();
    expect(sp("FileAccessed", { userType: 4 })).toBeNull();
    expect(sp("FileAccessed", { userType: 2 })?.type).toBe("file_access");
    const record = sharePointRecord({ id: "r1", at: AT, user: "a@contoso.test", operation: "FileAccessed" });
    expect(mapO365Record({ ...record, Id: undefined }, INTERNAL)).toBeNull();
    expect(mapO365Record({ ...record, CreationTime: "yesterday" }, INTERNAL)).toBeNull();
  });
});
