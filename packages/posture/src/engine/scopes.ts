// Scope breadth for both sources in one table. "Broad" means the grant reaches all of a user's
// (or the organization's) files, mail, chat or directory, or administers the tenant; anything
// else (per-file pickers, app folders, sign-in, calendar) is narrow.

const G = "https://www.googleapis.com/auth/";
const GRAPH_PREFIX = "https://graph.microsoft.com/";

const GOOGLE_BROAD = [
  `${G}drive`,
  `${G}drive.readonly`,
  "https://mail.google.com/",
  `${G}gmail.readonly`,
  `${G}gmail.modify`,
  `${G}gmail.compose`,
  `${G}gmail.send`,
  `${G}gmail.metadata`,
  `${G}gmail.settings.sharing`,
  `${G}documents`,
  `${G}spreadsheets`,
  `${G}presentations`,
  `${G}directory.readonly`,
  `${G}admin.directory.user`,
  `${G}admin.directory.user.readonly`,
  `${G}admin.directory.group`,
  `${G}admin.directory.domain`,
  `${G}admin.directory.rolemanagement`,
  `${G}admin.datatransfer`,
  `${G}cloud-platform`,
  `${G}chat.messages`,
  `${G}chat.messages.readonly`,
];

const MICROSOFT_BROAD = [
  "Files.Read",
  "Files.ReadWrite",
  "Files.Read.All",
  "Files.ReadWrite.All",
  "Sites.Read.All",
  "Sites.ReadWrite.All",
  "Sites.Manage.All",
  "Sites.FullControl.All",
  "Mail.Read",
  "Mail.ReadWrite",
  "Mail.Send",
  "Mail.Read.Shared",
  "Mail.ReadWrite.Shared",
  "EWS.AccessAsUser.All",
  "full_access_as_app",
  "Notes.Read.All",
  "Notes.ReadWrite.All",
  "Chat.Read",
  "Chat.ReadWrite",
  "Chat.Read.All",
  "ChannelMessage.Read.All",
  "User.Read.All",
  "User.ReadWrite.All",
  "Directory.Read.All",
  "Directory.ReadWrite.All",
  "Group.Read.All",
  "Group.ReadWrite.All",
  "RoleManagement.ReadWrite.Directory",
  "Application.ReadWrite.All",
  "AppRoleAssignment.ReadWrite.All",
];

const BROAD_SCOPES: ReadonlySet<string> = new Set(
  [...GOOGLE_BROAD, ...MICROSOFT_BROAD].map((s) => s.toLowerCase()),
);

/** Graph scopes are case-insensitive and may come with their resource URL; Google's are URLs. */
export function normaliseScope(scope: string): string {
  const lower = scope.trim().toLowerCase();
  return lower.startsWith(GRAPH_PREFIX) ? lower.slice(GRAPH_PREFIX.length) : lower;
}

export function isBroadScope(scope: string): boolean {
  return BROAD_SCOPES.has(normaliseScope(scope));
}

export function broadScopesOf(scopes: readonly string[]): string[] {
  return scopes.filter(isBroadScope);
}
