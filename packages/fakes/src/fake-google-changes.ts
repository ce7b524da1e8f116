import { type TGDrivePermission, type TGSharedDrive, type TGUser } from "@posture/connectors/wire";
import { pageSize, type TFakeResponse } from "./fake-server";
import {
  fileResource,
  includedLabels,
  type TCaller,
  type TFakeDriveFixture,
  type TGoogleError,
} from "./fake-google-drive";
import { CHANGE_LIST, DEFAULT_FIELDS, START_PAGE_TOKEN, type TShape } from "./fake-google-schema";

// Drive v3 `changes.getStartPageToken` and `changes.list` over a per-tenant change log. Every
// mutation a test makes through the tenant handle appends one entry naming who sees it: the users
// who could see the file before or after (their own feed), its owners before or after (the feed
// restricted to My Drive), and the shared drives it was in before or after (the drive's feed).
// A list answers each file once, at its latest change in range, with the file as it is now, or
// `removed: true` when the caller can no longer see it. Page tokens are change numbers, as Drive's
// are; a token older than the log's retention is refused (see `expiredStatus`).

type TFile = TFakeDriveFixture["files"][number];

type TEntry = {
  seq: number;
  fileId: string;
  time: string;
  /** Users with access before or after the change (their unrestricted feed). */
  access: Set<string>;
  /** Owners before or after (the feed restricted to My Drive). */
  myDrive: Set<string>;
  /** Shared drives holding the file before or after. */
  drives: Set<string>;
};

export type TFakeChangesOptions = {
  /**
   * The answer to a page token older than the log's retention. Drive documents its tokens as
   * never expiring and answers a token it cannot use with 400 `invalid` on `pageToken`; the issue
   * (and connectors in the wild) also expect 410. Default 410.
   */
  expiredStatus?: 400 | 410;
  /** Changes kept; older tokens are expired. Unbounded by default. */
  retainChanges?: number;
};

/** How a test changes the fake tenant: every file mutation lands in the change log. */
export type TFakeGoogleTenant = {
  addFile: (file: TFile) => void;
  /** Any change to a file's metadata: name, modifiedTime, permissions, trashed, driveId… */
  updateFile: (id: string, patch: Partial<TFile>) => void;
  share: (id: string, permission: TGDrivePermission) => void;
  unshare: (id: string, permissionId: string) => void;
  trashFile: (id: string) => void;
  /** Deleted for good (emptied from the bin). */
  deleteFile: (id: string) => void;
  /** The new owner gets the owner role; the old one stays on as a writer, as Drive does. */
  transferOwnership: (id: string, newOwner: string) => void;
  addUser: (user: TGUser) => void;
  suspendUser: (email: string) => void;
  unsuspendUser: (email: string) => void;
  /** Turns a user's Drive service off (Drive answers them 403 `domainPolicy`) or back on. */
  setDriveEnabled: (email: string, enabled: boolean) => void;
  /** Gone from the Directory (its files are no longer anyone's to read). */
  deleteUser: (email: string) => void;
  addDrive: (drive: TGSharedDrive & { id: string; permissions: TGDrivePermission[] }) => void;
  /** An administrator deletes a shared drive and everything in it. */
  deleteDrive: (id: string) => void;
  /** Every page token handed out so far falls out of the log's retention. */
  expireChangeTokens: () => void;
  /** Changes logged so far. */
  changeCount: () => number;
};

const lower = (value: string | undefined) => (value ?? "").toLowerCase();

export function createFakeChanges(
  fixture: TFakeDriveFixture & { driveDisabled?: string[] },
  view: {
    canSee: (file: TFile, subject: string) => boolean;
    isMember: (drive: TFakeDriveFixture["drives"][number] | undefined, subject: string) => boolean;
    masked: (q: URLSearchParams, shape: TShape, fallback: string, body: unknown) => TFakeResponse;
  },
  googleError: TGoogleError,
  opts: TFakeChangesOptions & { fakeMax: number },
) {
  const log: TEntry[] = [];
  // Change numbers start at 1; a token is the number of the first change it has not seen.
  let head = 1;
  let floor = 1;
  const driveOf = (id: string | null | undefined) => fixture.drives.find((d) => d.id === id);
  const fileOf = (id: string) => fixture.files.find((f) => f.id === id);

  function audience(file: TFile | undefined) {
    const owners = file && !file.driveId ? (file.owners ?? []).map((o) => lower(o.emailAddress)) : [];
    const named =
      file && !file.driveId
        ? file.permissions.filter((p) => p.type === "user" && !p.deleted).map((p) => lower(p.emailAddress))
        : [];
    return { owners, access: [...owners, ...named], drives: file?.driveId ? [file.driveId] : [] };
  }

  function record(fileId: string, before: TFile | undefined, after: TFile | undefined) {
    const [a, b] = [audience(before), audience(after)];
    log.push({
      seq: head++,
      fileId,
      time: new Date().toISOString(),
      access: new Set([...a.access, ...b.access]),
      myDrive: new Set([...a.owners, ...b.owners]),
      drives: new Set([...a.drives, ...b.drives]),
    });
    if (opts.retainChanges !== undefined) floor = Math.max(floor, head - opts.retainChanges);
  }

  function mutate(id: string, change: (file: TFile) => void) {
    const file = fileOf(id);
    if (!file) throw new Error(`fake Google: no file ${id}`);
    const before = structuredClone(file);
    change(file);
    record(id, before, file);
  }

  const userOf = (email: string) => fixture.users.find((u) => lower(u.primaryEmail) === lower(email));

  function setSuspended(email: string, suspended: boolean) {
    const user = userOf(email);
    if (!user) throw new Error(`fake Google: no user ${email}`);
    user.suspended = suspended;
  }

  const tenant: TFakeGoogleTenant = {
    addFile: (file) => {
      fixture.files.push(file);
      record(file.id ?? "", undefined, file);
    },
    updateFile: (id, patch) => mutate(id, (file) => Object.assign(file, patch)),
    share: (id, permission) => mutate(id, (file) => void file.permissions.push(permission)),
    unshare: (id, permissionId) =>
      mutate(id, (file) => {
        file.permissions = file.permissions.filter((p) => p.id !== permissionId);
      }),
    trashFile: (id) => mutate(id, (file) => void (file.trashed = true)),
    deleteFile: (id) => {
      const file = fileOf(id);
      if (!file) throw new Error(`fake Google: no file ${id}`);
      fixture.files.splice(fixture.files.indexOf(file), 1);
      record(id, file, undefined);
    },
    transferOwnership: (id, newOwner) =>
      mutate(id, (file) => {
        const owner = lower(newOwner);
        file.owners = [{ emailAddress: owner }];
        const kept = file.permissions
          .filter((p) => lower(p.emailAddress) !== owner)
          .map((p) => (p.role === "owner" ? { ...p, role: "writer" as const } : p));
        file.permissions = [
          { id: `p-owner-${owner}`, type: "user", role: "owner", emailAddress: owner },
          ...kept,
        ];
      }),
    addUser: (user) => void fixture.users.push(user),
    suspendUser: (email) => setSuspended(email, true),
    unsuspendUser: (email) => setSuspended(email, false),
    setDriveEnabled: (email, enabled) => {
      const off = (fixture.driveDisabled ?? []).filter((e) => lower(e) !== lower(email));
      fixture.driveDisabled = enabled ? off : [...off, lower(email)];
    },
    deleteUser: (email) => {
      const user = userOf(email);
      if (!user) throw new Error(`fake Google: no user ${email}`);
      fixture.users.splice(fixture.users.indexOf(user), 1);
    },
    addDrive: (drive) => void fixture.drives.push(drive),
    deleteDrive: (id) => {
      const drive = driveOf(id);
      if (!drive) throw new Error(`fake Google: no shared drive ${id}`);
      for (const file of fixture.files.filter((f) => f.driveId === id)) tenant.deleteFile(file.id ?? "");
      fixture.drives.splice(fixture.drives.indexOf(drive), 1);
    },
    expireChangeTokens: () => {
      floor = head;
    },
    changeCount: () => log.length,
  };

  const invalidToken = () => googleError(400, "Invalid Value", "invalid", "pageToken");

  /** A token's change number, or the answer Drive gives a token it cannot use. */
  function tokenSeq(token: string | null): number | TFakeResponse {
    if (!token) return googleError(400, "Required parameter: pageToken", "required", "pageToken");
    if (!/^\d+$/.test(token) || Number(token) > head || Number(token) < 1) return invalidToken();
    if (Number(token) >= floor) return Number(token);
    return opts.expiredStatus === 400
      ? invalidToken()
      : googleError(410, "The page token is no longer valid; get a new start page token.", "deleted");
  }

  /** A shared drive named by `driveId`, checked as Drive does; null when no drive was named. */
  function namedDrive(q: URLSearchParams, caller: TCaller, needsItems: boolean): TFakeResponse | null {
    const driveId = q.get("driveId");
    if (driveId === null) return null;
    if (
      q.get("supportsAllDrives") !== "true" ||
      (needsItems && q.get("includeItemsFromAllDrives") !== "true")
    )
      return googleError(
        400,
        "The includeItemsFromAllDrives and supportsAllDrives parameters must be set to true when driveId is set.",
        "invalid",
      );
    if (!view.isMember(driveOf(driveId), caller.subject))
      return googleError(404, `Shared drive not found: ${driveId}`, "notFound", "driveId");
    return null;
  }

  function getStartPageToken(q: URLSearchParams, caller: TCaller): TFakeResponse {
    return (
      namedDrive(q, caller, false) ??
      view.masked(q, START_PAGE_TOKEN, DEFAULT_FIELDS.startPageToken, {
        kind: "drive#startPageToken",
        startPageToken: String(head),
      })
    );
  }

  function list(q: URLSearchParams, caller: TCaller): TFakeResponse {
    const refused = namedDrive(q, caller, true);
    if (refused) return refused;
    const from = tokenSeq(q.get("pageToken"));
    if (typeof from !== "number") return from;
    const spaces = (q.get("spaces") ?? "drive").split(",");
    if (spaces.some((s) => !["drive", "appDataFolder"].includes(s)))
      return googleError(400, "Invalid Value", "invalid", "spaces");
    const driveId = q.get("driveId");
    const subject = caller.subject;
    const allDrives = q.get("includeItemsFromAllDrives") === "true";
    const restricted = q.get("restrictToMyDrive") === "true";
    const includeRemoved = q.get("includeRemoved") !== "false";
    const inFeed = (entry: TEntry) => {
      if (!spaces.includes("drive")) return false;
      if (driveId !== null) return entry.drives.has(driveId);
      if ((restricted ? entry.myDrive : entry.access).has(subject)) return true;
      return allDrives && [...entry.drives].some((d) => view.isMember(driveOf(d), subject));
    };
    // Each file once, at its latest change in range.
    const latest = new Map<string, number>();
    for (const entry of log.slice(from - 1)) if (inFeed(entry)) latest.set(entry.fileId, entry.seq);
    const due = log.slice(from - 1).filter((e) => latest.get(e.fileId) === e.seq);
    const size = pageSize(q.get("pageSize"), 100, 1000, opts.fakeMax);
    const page = due.slice(0, size);
    const labelIds = includedLabels(q);
    const changes = page.flatMap((entry) => {
      const file = fileOf(entry.fileId);
      const visible =
        file &&
        (driveId !== null
          ? file.driveId === driveId
          : file.driveId
            ? allDrives && view.isMember(driveOf(file.driveId), subject)
            : view.canSee(file, subject));
      const base = { kind: "drive#change", changeType: "file", time: entry.time, fileId: entry.fileId };
      if (file && visible)
        return [
          {
            ...base,
            removed: false,
            file: fileResource(file, labelIds),
            ...(file.driveId ? { driveId: file.driveId } : {}),
          },
        ];
      return includeRemoved ? [{ ...base, removed: true, ...(driveId ? { driveId } : {}) }] : [];
    });
    const last = page.at(-1);
    const more = due.length > page.length && last;
    return view.masked(q, CHANGE_LIST, DEFAULT_FIELDS.changes, {
      kind: "drive#changeList",
      ...(more ? { nextPageToken: String(last.seq + 1) } : { newStartPageToken: String(head) }),
      changes,
    });
  }

  return { getStartPageToken, list, tenant };
}
