import type { TConnectorType } from "../types";
import { fnv1a, guid, randomString, type TRng } from "./prng";
import type { TFileKind } from "./vocabulary";

// What makes a Google Workspace tenant look different from a Microsoft 365 one: identifier
// formats, MIME types and OAuth scope strings. Everything else is shared.

export type TCatalogApp = {
  key: string;
  label: string;
  kind: "ai_agent" | "oauth_app" | "service_account";
  publisher: string;
  isKnownPublisher: boolean;
  scopes: string[];
};

export type TFlavour = {
  fileId: (rng: TRng) => string;
  userId: (rng: TRng) => string;
  driveId: (rng: TRng) => string;
  clientId: (key: string, rng?: TRng) => string;
  mimeType: (kind: TFileKind) => string;
  extension: (kind: TFileKind) => string;
  /** The well-known apps (and the tenant's own service accounts) every demo tenant has. */
  catalog: (company: string) => TCatalogApp[];
  broadScopes: readonly string[];
  narrowScopes: readonly string[];
};

const G = "https://www.googleapis.com/auth/";

const GOOGLE_MIME: Record<TFileKind, string> = {
  doc: "application/vnd.google-apps.document",
  sheet: "application/vnd.google-apps.spreadsheet",
  slides: "application/vnd.google-apps.presentation",
  pdf: "application/pdf",
  zip: "application/zip",
  image: "image/png",
  csv: "text/csv",
};

const OFFICE_MIME: Record<TFileKind, string> = {
  doc: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  sheet: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  slides: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  pdf: "application/pdf",
  zip: "application/zip",
  image: "image/png",
  csv: "text/csv",
};

const GOOGLE_EXTENSION: Record<TFileKind, string> = {
  doc: "",
  sheet: "",
  slides: "",
  pdf: ".pdf",
  zip: ".zip",
  image: ".png",
  csv: ".csv",
};

const OFFICE_EXTENSION: Record<TFileKind, string> = {
  doc: ".docx",
  sheet: ".xlsx",
  slides: ".pptx",
  pdf: ".pdf",
  zip: ".zip",
  image: ".png",
  csv: ".csv",
};

// Service accounts come last in both catalogs: user grants are drawn from the head of the list.
function googleCatalog(company: string): TCatalogApp[] {
  const basic = [`${G}userinfo.email`, `${G}userinfo.profile`, "openid"];
  return [
    app("chatterbox", "Chatterbox", "oauth_app", "Chatterbox Inc.", true, [...basic, `${G}drive.file`]),
    app("vidmeet", "VidMeet", "oauth_app", "VidMeet Communications", true, [...basic, `${G}calendar.events`]),
    app("signflow", "SignFlow", "oauth_app", "SignFlow Corp.", true, [
      `${G}drive.file`,
      `${G}userinfo.email`,
    ]),
    app("crm-cloud", "CRM Cloud", "oauth_app", "CRM Cloud Inc.", true, [
      `${G}gmail.readonly`,
      `${G}calendar.readonly`,
      `${G}contacts.readonly`,
    ]),
    app("documind", "DocuMind Copilot", "ai_agent", "DocuMind Ltd.", true, [`${G}drive.readonly`, ...basic]),
    app("notely", "Notely AI Assistant", "ai_agent", "Notely", true, [
      `${G}drive.file`,
      `${G}userinfo.email`,
    ]),
    app("inboxgpt", "InboxGPT", "ai_agent", "InboxGPT Labs", false, [
      `${G}gmail.modify`,
      `${G}userinfo.email`,
    ]),
    app("meetingscribe", "MeetingScribe AI", "ai_agent", "Scribe Apps", false, [
      `${G}calendar.readonly`,
      `${G}userinfo.email`,
    ]),
    app("llm-connector", "Workspace LLM Connector", "ai_agent", "Unverified developer", false, [
      `${G}drive`,
      `${G}gmail.readonly`,
    ]),
    app("backupbox", "BackupBox", "oauth_app", "BackupBox SAS", true, [`${G}drive`, ...basic]),
    app("freepdf", "FreePDF Tools", "oauth_app", "freepdftools.app", false, [`${G}drive`]),
    app("pollpal", "PollPal", "oauth_app", "PollPal", false, [`${G}drive.file`, `${G}forms.body`]),
    app(
      "sa-backup",
      `backup-sync@${company}-it.iam.gserviceaccount.com`,
      "service_account",
      `${company} IT`,
      true,
      [`${G}drive.readonly`],
    ),
    app(
      "sa-directory",
      `directory-sync@${company}-it.iam.gserviceaccount.com`,
      "service_account",
      `${company} IT`,
      true,
      [`${G}admin.directory.user.readonly`],
    ),
    app(
      "sa-etl",
      "etl-runner@data-pipeline-4821.iam.gserviceaccount.com",
      "service_account",
      "data-pipeline-4821",
      false,
      [`${G}cloud-platform`, `${G}drive`],
    ),
  ];
}

function microsoftCatalog(company: string): TCatalogApp[] {
  const basic = ["openid", "profile", "email", "User.Read"];
  return [
    app("chatterbox", "Chatterbox", "oauth_app", "Chatterbox Inc.", true, basic),
    app("vidmeet", "VidMeet", "oauth_app", "VidMeet Communications", true, [
      "User.Read",
      "Calendars.ReadWrite",
    ]),
    app("signflow", "SignFlow", "oauth_app", "SignFlow Corp.", true, [
      "User.Read",
      "Files.ReadWrite.AppFolder",
    ]),
    app("crm-cloud", "CRM Cloud", "oauth_app", "CRM Cloud Inc.", true, [
      "Mail.Read",
      "Contacts.Read",
      "Calendars.Read",
    ]),
    app("documind", "DocuMind Copilot", "ai_agent", "DocuMind Ltd.", true, [
      "Files.Read.All",
      "Sites.Read.All",
      "User.Read",
    ]),
    app("notely", "Notely AI Assistant", "ai_agent", "Notely", true, ["User.Read", "Notes.Create"]),
    app("inboxgpt", "InboxGPT", "ai_agent", "InboxGPT Labs", false, [
      "Mail.ReadWrite",
      "Mail.Send",
      "User.Read",
    ]),
    app("meetingscribe", "MeetingScribe AI", "ai_agent", "Scribe Apps", false, [
      "Calendars.Read",
      "OnlineMeetings.Read",
    ]),
    app("llm-connector", "Tenant LLM Connector", "ai_agent", "Unverified developer", false, [
      "Files.ReadWrite.All",
      "Mail.Read",
    ]),
    app("backupbox", "BackupBox", "oauth_app", "BackupBox SAS", true, [
      "Files.ReadWrite.All",
      "Sites.ReadWrite.All",
    ]),
    app("freepdf", "FreePDF Tools", "oauth_app", "freepdftools.app", false, ["Files.ReadWrite.All"]),
    app("pollpal", "PollPal", "oauth_app", "PollPal", false, ["User.Read", "Files.ReadWrite.AppFolder"]),
    app("sa-backup", `${company} Backup Service`, "service_account", `${company} IT`, true, [
      "Sites.Read.All",
    ]),
    app("sa-directory", `${company} Directory Sync`, "service_account", `${company} IT`, true, [
      "Directory.Read.All",
    ]),
    app("sa-etl", "etl-runner-4821", "service_account", "data-pipeline-4821", false, [
      "Directory.Read.All",
      "Files.ReadWrite.All",
    ]),
  ];
}

function app(
  key: string,
  label: string,
  kind: TCatalogApp["kind"],
  publisher: string,
  isKnownPublisher: boolean,
  scopes: string[],
): TCatalogApp {
  return { key, label, kind, publisher, isKnownPublisher, scopes };
}

const GOOGLE: TFlavour = {
  fileId: (rng) => `1${randomString(rng, 32, "base64url")}`,
  userId: (rng) =>
    `1${String(rng.int(1e9)).padStart(9, "0")}${String(rng.int(1e9)).padStart(9, "0")}${rng.int(100)}`,
  driveId: (rng) => `0A${randomString(rng, 11, "base64url")}Uk9PVA`,
  clientId: (key, rng) => {
    const n = rng ? rng.word() : fnv1a(key);
    return `${String(100000000000 + n).padStart(12, "0")}-${randomStringFromHash(fnv1a(`${key}:${n}`))}.apps.googleusercontent.com`;
  },
  mimeType: (kind) => GOOGLE_MIME[kind],
  extension: (kind) => GOOGLE_EXTENSION[kind],
  catalog: googleCatalog,
  broadScopes: [`${G}drive`, `${G}gmail.readonly`, "https://mail.google.com/"],
  narrowScopes: [`${G}drive.file`, `${G}userinfo.email`, `${G}calendar.events.readonly`],
};

const MICROSOFT: TFlavour = {
  fileId: (rng) => `01${randomString(rng, 32, "base32")}`,
  userId: (rng) => guid(rng),
  driveId: (rng) => `b!${randomString(rng, 40, "base64url")}`,
  clientId: (key, rng) => (rng ? guid(rng) : guidFromHash(fnv1a(key))),
  mimeType: (kind) => OFFICE_MIME[kind],
  extension: (kind) => OFFICE_EXTENSION[kind],
  catalog: microsoftCatalog,
  broadScopes: ["Files.ReadWrite.All", "Mail.Read", "Sites.Read.All"],
  narrowScopes: ["User.Read", "Files.ReadWrite.AppFolder", "Calendars.Read"],
};

export function flavourOf(type: TConnectorType): TFlavour {
  return type === "google_workspace" ? GOOGLE : MICROSOFT;
}

function randomStringFromHash(h: number): string {
  let out = "";
  let v = h;
  for (let i = 0; i < 24; i++) {
    v = Math.imul(v ^ (v >>> 15), 0x2c1b3c6d) >>> 0;
    out += "abcdefghijklmnopqrstuvwxyz0123456789".charAt(v % 36);
  }
  return out;
}

function guidFromHash(h: number): string {
  const hex = randomStringFromHash(h)
    .split("")
    .map((c) => (c.charCodeAt(0) % 16).toString(16))
    .join("");
  const full = (hex + hex).slice(0, 32);
  return `${full.slice(0, 8)}-${full.slice(8, 12)}-4${full.slice(13, 16)}-a${full.slice(17, 20)}-${full.slice(20)}`;
}
