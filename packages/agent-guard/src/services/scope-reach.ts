// What an OAuth scope lets an app reach, for both sources. `org` reaches every user's data (or
// administers the tenant); `user` reaches all of the granting user's files, mail or chat;
// `narrow` is a file picker, sign-in or calendar. Read-write scopes are marked `write`.

const G = "https://www.googleapis.com/auth/";
const GRAPH = "https://graph.microsoft.com/";

export type TReach = {
  breadth: "org" | "user" | "narrow";
  kind: "files" | "mail" | "directory" | "chat" | "other";
  write: boolean;
};

const TABLE: Record<string, TReach> = {
  [`${G}drive`]: { breadth: "user", kind: "files", write: true },
  [`${G}drive.readonly`]: { breadth: "user", kind: "files", write: false },
  [`${G}documents`]: { breadth: "user", kind: "files", write: true },
  [`${G}spreadsheets`]: { breadth: "user", kind: "files", write: true },
  [`${G}presentations`]: { breadth: "user", kind: "files", write: true },
  "https://mail.google.com/": { breadth: "user", kind: "mail", write: true },
  [`${G}gmail.readonly`]: { breadth: "user", kind: "mail", write: false },
  [`${G}gmail.modify`]: { breadth: "user", kind: "mail", write: true },
  [`${G}gmail.send`]: { breadth: "user", kind: "mail", write: true },
  [`${G}gmail.compose`]: { breadth: "user", kind: "mail", write: true },
  [`${G}gmail.metadata`]: { breadth: "user", kind: "mail", write: false },
  [`${G}chat.messages`]: { breadth: "user", kind: "chat", write: true },
  [`${G}chat.messages.readonly`]: { breadth: "user", kind: "chat", write: false },
  [`${G}directory.readonly`]: { breadth: "org", kind: "directory", write: false },
  [`${G}admin.directory.user`]: { breadth: "org", kind: "directory", write: true },
  [`${G}admin.directory.user.readonly`]: { breadth: "org", kind: "directory", write: false },
  [`${G}admin.directory.group`]: { breadth: "org", kind: "directory", write: true },
  [`${G}admin.directory.domain`]: { breadth: "org", kind: "directory", write: true },
  [`${G}admin.directory.rolemanagement`]: { breadth: "org", kind: "directory", write: true },
  [`${G}admin.datatransfer`]: { breadth: "org", kind: "files", write: true },
  [`${G}cloud-platform`]: { breadth: "org", kind: "other", write: true },
  "files.read": { breadth: "user", kind: "files", write: false },
  "files.readwrite": { breadth: "user", kind: "files", write: true },
  "files.read.all": { breadth: "org", kind: "files", write: false },
  "files.readwrite.all": { breadth: "org", kind: "files", write: true },
  "sites.read.all": { breadth: "org", kind: "files", write: false },
  "sites.readwrite.all": { breadth: "org", kind: "files", write: true },
  "sites.manage.all": { breadth: "org", kind: "files", write: true },
  "sites.fullcontrol.all": { breadth: "org", kind: "files", write: true },
  "mail.read": { breadth: "user", kind: "mail", write: false },
  "mail.readwrite": { breadth: "user", kind: "mail", write: true },
  "mail.send": { breadth: "user", kind: "mail", write: true },
  "mail.read.shared": { breadth: "org", kind: "mail", write: false },
  "mail.readwrite.shared": { breadth: "org", kind: "mail", write: true },
  "ews.accessasuser.all": { breadth: "user", kind: "mail", write: true },
  full_access_as_app: { breadth: "org", kind: "mail", write: true },
  "chat.read": { breadth: "user", kind: "chat", write: false },
  "chat.readwrite": { breadth: "user", kind: "chat", write: true },
  "chat.read.all": { breadth: "org", kind: "chat", write: false },
  "channelmessage.read.all": { breadth: "org", kind: "chat", write: false },
  "user.read.all": { breadth: "org", kind: "directory", write: false },
  "user.readwrite.all": { breadth: "org", kind: "directory", write: true },
  "directory.read.all": { breadth: "org", kind: "directory", write: false },
  "directory.readwrite.all": { breadth: "org", kind: "directory", write: true },
  "group.read.all": { breadth: "org", kind: "directory", write: false },
  "group.readwrite.all": { breadth: "org", kind: "directory", write: true },
  "rolemanagement.readwrite.directory": { breadth: "org", kind: "directory", write: true },
  "application.readwrite.all": { breadth: "org", kind: "directory", write: true },
  "approleassignment.readwrite.all": { breadth: "org", kind: "directory", write: true },
};

const NARROW: TReach = { breadth: "narrow", kind: "other", write: false };

export function reachOf(scope: string): TReach {
  const lower = scope.trim().toLowerCase();
  const key = lower.startsWith(GRAPH) ? lower.slice(GRAPH.length) : lower;
  return TABLE[key] ?? NARROW;
}

/** Scopes whose reach goes beyond a file picker or sign-in (the matrix's "broad"). */
export function isBroad(scopes: readonly string[]): boolean {
  return scopes.some((s) => reachOf(s).breadth !== "narrow");
}
