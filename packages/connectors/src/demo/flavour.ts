import type { TAppGrant, TAssistantKind, TSuiteType } from "../types";
import { fnv1a, guid, randomString, type TRng } from "./prng";
import type { TFileKind } from "./vocabulary";

// What makes a Google Workspace tenant look different from a Microsoft 365 one: identifier
// formats, MIME types and OAuth scope strings. Everything else is shared.

/** An app as every tenant's grants name it; `key` ties it to a stable client ID. */
export type TCatalogApp = { key: string } & Pick<
  TAppGrant,
  "label" | "kind" | "publisher" | "isKnownPublisher" | "scopes" | "access" | "agentSource"
>;

export type TFlavour = {
  fileId: (rng: TRng) => string;
  userId: (rng: TRng) => string;
  driveId: (rng: TRng) => string;
  clientId: (key: string, rng?: TRng) => string;
  mimeType: (kind: TFileKind) => string;
  extension: (kind: TFileKind) => string;
  /** The well-known apps (and the tenant's own service accounts) every demo tenant has. */
  catalog: (company: string) => TCatalogApp[];
  /** Where a long-tail AI app of this platform is known as an agent from. */
  tailAgentSource: NonNullable<TAppGrant["agentSource"]>;
  broadScopes: readonly string[];
  /** The suite's AI assistant, whose licence some users hold (Microsoft 365 Copilot, Gemini). */
  assistant: TAssistantKind;
  narrowScopes: readonly string[];
};

const G = "https://www.googleapis.com/auth/";

// Only documents, sheets and slides are native to a platform; the other kinds are the same files on both.
type TNativeKind = "doc" | "sheet" | "slides";
const PORTABLE_MIME: Record<Exclude<TFileKind, TNativeKind>, string> = {
  pdf: "application/pdf",
  zip: "application/zip",
  image: "image/png",
  csv: "text/csv",
};
const PORTABLE_EXTENSION: Record<Exclude<TFileKind, TNativeKind>, string> = {
  pdf: ".pdf",
  zip: ".zip",
  image: ".png",
  csv: ".csv",
};

const GOOGLE_MIME: Record<TFileKind, string> = {
  doc: "application/vnd.google-apps.document",
  sheet: "application/vnd.google-apps.spreadsheet",
  slides: "application/vnd.google-apps.presentation",
  ...PORTABLE_MIME,
};

const OFFICE_MIME: Record<TFileKind, string> = {
  doc: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  sheet: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  slides: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  ...PORTABLE_MIME,
};

// Google-native files have no extension in Drive.
const GOOGLE_EXTENSION: Record<TFileKind, string> = { doc: "", sheet: "", slides: "", ...PORTABLE_EXTENSION };
const OFFICE_EXTENSION: Record<TFileKind, string> = {
  doc: ".docx",
  sheet: ".xlsx",
  slides: ".pptx",
  ...PORTABLE_EXTENSION,
};

type TAppIdentity = Omit<TCatalogApp, "key" | "scopes" | "access" | "agentSource">;

/** How an app reads and why it is an agent, per platform (issue 30): the registries' facts. */
type TAgentFacts = Pick<TCatalogApp, "access" | "agentSource">;

// The same vendors publish the same apps on both platforms; only the scopes they ask for (and the
// LLM connector's name) differ. Order matters: user grants are drawn from the head of the list.
const MARKETPLACE = {
  chatterbox: identity("Chatterbox", "oauth_app", "Chatterbox Inc.", true),
  vidmeet: identity("VidMeet", "oauth_app", "VidMeet Communications", true),
  signflow: identity("SignFlow", "oauth_app", "SignFlow Corp.", true),
  "crm-cloud": identity("CRM Cloud", "oauth_app", "CRM Cloud Inc.", true),
  documind: identity("DocuMind Copilot", "ai_agent", "DocuMind Ltd.", true),
  notely: identity("Notely AI Assistant", "ai_agent", "Notely", true),
  inboxgpt: identity("InboxGPT", "ai_agent", "InboxGPT Labs", false),
  meetingscribe: identity("MeetingScribe AI", "ai_agent", "Scribe Apps", false),
  // Named per platform: catalogOf() takes its label.
  "llm-connector": identity("LLM Connector", "ai_agent", "Unverified developer", false),
  backupbox: identity("BackupBox", "oauth_app", "BackupBox SAS", true),
  freepdf: identity("FreePDF Tools", "oauth_app", "freepdftools.app", false),
  pollpal: identity("PollPal", "oauth_app", "PollPal", false),
} satisfies Record<string, TAppIdentity>;

type TMarketplaceKey = keyof typeof MARKETPLACE;

/** The tenant's own service accounts and a third party's pipeline, named the platform's way. */
type TServiceAccountKey = "sa-backup" | "sa-directory" | "sa-etl";

function identity(
  label: string,
  kind: TCatalogApp["kind"],
  publisher: string,
  isKnownPublisher: boolean,
): TAppIdentity {
  return { label, kind, publisher, isKnownPublisher };
}

// Service accounts come last in both catalogs: user grants are drawn from the head of the list.
function catalogOf(
  company: string,
  llmConnectorLabel: string,
  scopes: Record<TMarketplaceKey | TServiceAccountKey, string[]>,
  serviceAccountLabels: Record<TServiceAccountKey, string>,
  agents: Record<"documind" | "notely" | "inboxgpt" | "meetingscribe" | "llm-connector", TAgentFacts>,
): TCatalogApp[] {
  const marketplace = (Object.keys(MARKETPLACE) as TMarketplaceKey[]).map((key) => ({
    key,
    ...MARKETPLACE[key],
    ...(key === "llm-connector" ? { label: llmConnectorLabel } : {}),
    scopes: scopes[key],
    access: "delegated" as const,
    ...(key in agents ? agents[key as keyof typeof agents] : {}),
  }));
  const serviceAccount = (key: TServiceAccountKey, publisher: string, isKnownPublisher: boolean) => ({
    key,
    label: serviceAccountLabels[key],
    kind: "service_account" as const,
    publisher,
    isKnownPublisher,
    scopes: scopes[key],
    // Service accounts act as themselves: app-only roles, or Google's domain-wide delegation.
    access: "application" as const,
  });
  return [
    ...marketplace,
    serviceAccount("sa-backup", `${company} IT`, true),
    serviceAccount("sa-directory", `${company} IT`, true),
    serviceAccount("sa-etl", "data-pipeline-4821", false),
  ];
}

function googleCatalog(company: string): TCatalogApp[] {
  const basic = [`${G}userinfo.email`, `${G}userinfo.profile`, "openid"];
  return catalogOf(
    company,
    "Workspace LLM Connector",
    {
      chatterbox: [...basic, `${G}drive.file`],
      vidmeet: [...basic, `${G}calendar.events`],
      signflow: [`${G}drive.file`, `${G}userinfo.email`],
      "crm-cloud": [`${G}gmail.readonly`, `${G}calendar.readonly`, `${G}contacts.readonly`],
      documind: [`${G}drive.readonly`, ...basic],
      notely: [`${G}drive.file`, `${G}userinfo.email`],
      inboxgpt: [`${G}gmail.modify`, `${G}userinfo.email`],
      meetingscribe: [`${G}calendar.readonly`, `${G}userinfo.email`],
      "llm-connector": [`${G}drive`, `${G}gmail.readonly`],
      backupbox: [`${G}drive`, ...basic],
      freepdf: [`${G}drive`],
      pollpal: [`${G}drive.file`, `${G}forms.body`],
      "sa-backup": [`${G}drive.readonly`],
      "sa-directory": [`${G}admin.directory.user.readonly`],
      "sa-etl": [`${G}cloud-platform`, `${G}drive`],
    },
    {
      "sa-backup": `backup-sync@${company}-it.iam.gserviceaccount.com`,
      "sa-directory": `directory-sync@${company}-it.iam.gserviceaccount.com`,
      "sa-etl": "etl-runner@data-pipeline-4821.iam.gserviceaccount.com",
    },
    // Google has no agent registry of its own: agents are the catalog's, by client id; the LLM
    // connector holds domain-wide delegation (application access to every user's Drive and mail).
    {
      documind: { access: "delegated", agentSource: "publisher_catalog" },
      notely: { access: "delegated", agentSource: "publisher_catalog" },
      inboxgpt: { access: "delegated", agentSource: "publisher_catalog" },
      meetingscribe: { access: "delegated", agentSource: "publisher_catalog" },
      "llm-connector": { access: "application", agentSource: "publisher_catalog" },
    },
  );
}

function microsoftCatalog(company: string): TCatalogApp[] {
  return catalogOf(
    company,
    "Tenant LLM Connector",
    {
      chatterbox: ["openid", "profile", "email", "User.Read"],
      vidmeet: ["User.Read", "Calendars.ReadWrite"],
      signflow: ["User.Read", "Files.ReadWrite.AppFolder"],
      "crm-cloud": ["Mail.Read", "Contacts.Read", "Calendars.Read"],
      documind: ["Files.Read.All", "Sites.Read.All", "User.Read"],
      notely: ["User.Read", "Notes.Create"],
      inboxgpt: ["Mail.ReadWrite", "Mail.Send", "User.Read"],
      meetingscribe: ["Calendars.Read", "OnlineMeetings.Read"],
      "llm-connector": ["Files.ReadWrite.All", "Mail.Read"],
      backupbox: ["Files.ReadWrite.All", "Sites.ReadWrite.All"],
      freepdf: ["Files.ReadWrite.All"],
      pollpal: ["User.Read", "Files.ReadWrite.AppFolder"],
      "sa-backup": ["Sites.Read.All"],
      "sa-directory": ["Directory.Read.All"],
      "sa-etl": ["Directory.Read.All", "Files.ReadWrite.All"],
    },
    {
      "sa-backup": `${company} Backup Service`,
      "sa-directory": `${company} Directory Sync`,
      "sa-etl": "etl-runner-4821",
    },
    // A Copilot agent of the admin catalog, an Entra agent identity with application permissions
    // (app-only), a blueprint's agent acting for its users, and publisher-catalog agents.
    {
      documind: { access: "delegated", agentSource: "copilot_catalog" },
      "llm-connector": { access: "application", agentSource: "agent_registry" },
      meetingscribe: { access: "delegated", agentSource: "agent_registry" },
      notely: { access: "delegated", agentSource: "publisher_catalog" },
      inboxgpt: { access: "delegated", agentSource: "publisher_catalog" },
    },
  );
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
  tailAgentSource: "publisher_catalog",
  assistant: "gemini",
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
  tailAgentSource: "agent_registry",
  assistant: "copilot",
  broadScopes: ["Files.ReadWrite.All", "Mail.Read", "Sites.Read.All"],
  narrowScopes: ["User.Read", "Files.ReadWrite.AppFolder", "Calendars.Read"],
};

export function flavourOf(type: TSuiteType): TFlavour {
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
