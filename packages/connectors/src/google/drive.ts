import { emailDomain } from "@posture/platform";
import { type TJsonClient } from "../http/client";
import { SourceHttpError } from "../http/errors";
import { pagesByToken } from "../http/paginate";
import { SourceAuthError, type TSharedDrive, type TSourceFile, type TSourceUser } from "../types";
import { GOOGLE_FEATURE, GOOGLE_SCOPE } from "./access";
import {
  type TGDriveFile,
  type TGDriveList,
  type TGDrivePermission,
  type TGFileList,
  type TGPermissionList,
  type TGSharedDrive,
} from "./api-types";
import { mergeBounded } from "./bounded";
import { type TGapBook } from "./gaps";
import { labelName, type TLabelCatalogue } from "./labels";
import { mapFile, mapSharedDrive } from "./map";

// Drive, read the way a tenant really lets a service account see it: every active user's My Drive
// as that user (domain-wide delegation), every shared drive through one of its own members, and
// the shared drives themselves with domain administrator access. See docs/sources/google-workspace.md.

const FILES = "/drive/v3/files";
const PERMISSION_FIELDS =
  "nextPageToken,permissions(id,type,role,emailAddress,domain,deleted,allowFileDiscovery,expirationTime)";
export const FILE_FIELDS =
  "id,name,mimeType,driveId,owners(emailAddress),modifiedTime,size," +
  "permissions(id,type,role,emailAddress,domain,deleted,allowFileDiscovery,expirationTime)";
const OWNED_BY_USER = "'me' in owners and trashed = false";
const ALL_DRIVES = { supportsAllDrives: true, includeItemsFromAllDrives: true } as const;
// Who speaks for a shared drive best: organizers can see everything in it.
const ROLE_ORDER = ["organizer", "fileOrganizer", "writer", "commenter", "reader"];
// Members tried before a drive is declared unreadable (each refusal costs one token request).
const MAX_READERS_TRIED = 10;

export type TDriveReaderDeps = {
  /** A Drive client acting as `subject` with the Drive scope (the bare token's caller without delegation). */
  driveAs: (subject: string) => TJsonClient;
  delegated: boolean;
  adminSubject: string;
  users: () => AsyncIterable<TSourceUser>;
  internalDomains: () => Promise<string[]>;
  labels: () => Promise<TLabelCatalogue | null>;
  gaps: TGapBook;
  concurrency: number;
};

/** A shared drive as read: its members, its file count, and whether every file was listed. */
type TDriveRead = { members: TGDrivePermission[]; fileCount: number; complete: boolean };

/** A refusal that costs one user or one drive, not the scan: the token or the API said no. */
export function refusal(error: unknown): string | null {
  if (error instanceof SourceAuthError) return error.message;
  if (error instanceof SourceHttpError && error.status === 404) return error.message;
  return null;
}

export function createDriveReader(deps: TDriveReaderDeps) {
  const { gaps } = deps;
  const admin = deps.driveAs(deps.adminSubject);
  const suspended = new Set<string>();
  const drives = new Map<string, TDriveRead>();

  async function fileQuery(extra: Record<string, string | boolean>) {
    const catalogue = await deps.labels();
    const withLabels = catalogue && catalogue.ids.length > 0;
    return {
      pageSize: 1000,
      ...(withLabels ? { includeLabels: catalogue.ids.join(",") } : {}),
      fields: `nextPageToken,files(${FILE_FIELDS}${withLabels ? ",labelInfo" : ""})`,
      ...extra,
    };
  }

  async function* listPermissions(
    client: TJsonClient,
    fileId: string,
    asAdmin: boolean,
  ): AsyncGenerator<TGDrivePermission> {
    const path = `${FILES}/${encodeURIComponent(fileId)}/permissions`;
    const query = {
      supportsAllDrives: true,
      useDomainAdminAccess: asAdmin || undefined,
      pageSize: 100,
      fields: PERMISSION_FIELDS,
    };
    for await (const page of pagesByToken<TGPermissionList>(client, path, query))
      yield* page.permissions ?? [];
  }

  async function toSourceFile(client: TJsonClient, file: TGDriveFile): Promise<TSourceFile> {
    // files.list leaves `permissions` out for shared-drive items; permissions.list has them.
    let permissions = file.permissions;
    if (!permissions && file.id) {
      permissions = [];
      try {
        for await (const p of listPermissions(client, file.id, false)) permissions.push(p);
      } catch (error) {
        // One file its reader may see but not share (insufficientFilePermissions) must not sink the scan.
        if (!(error instanceof SourceAuthError)) throw error;
      }
    }
    return mapFile(file, permissions ?? [], labelName(file.labelInfo?.labels, await deps.labels()));
  }

  /** The files `subject` owns in their My Drive; a refusal is thrown. */
  async function* ownedFiles(subject: string): AsyncGenerator<TSourceFile> {
    const client = deps.driveAs(subject);
    const query = await fileQuery({ corpora: "user", q: OWNED_BY_USER });
    for await (const page of pagesByToken<TGFileList>(client, FILES, query)) {
      for (const file of page.files ?? []) yield await toSourceFile(client, file);
    }
  }

  /** The files `subject` owns in their My Drive (one owner per file: each is listed once). */
  async function* userFiles(subject: string): AsyncGenerator<TSourceFile> {
    try {
      yield* ownedFiles(subject);
    } catch (error) {
      const reason = refusal(error);
      if (reason === null) throw error;
      gaps.add(
        GOOGLE_FEATURE.files,
        "these users' My Drive files",
        `Reading their Drive as them was refused: ${reason}`,
        subject,
      );
    }
  }

  async function* activeUsers(): AsyncGenerator<string> {
    for await (const user of deps.users()) {
      if (!user.suspended) {
        yield user.email;
        continue;
      }
      suspended.add(user.email.toLowerCase());
      gaps.add(
        GOOGLE_FEATURE.files,
        "suspended users' My Drive files",
        "A suspended user cannot be impersonated, so the files they own are not read; transfer " +
          "their files to an active owner",
        user.email,
      );
    }
  }

  async function* adminDrives(): AsyncGenerator<TGSharedDrive & { id: string }> {
    const query = {
      useDomainAdminAccess: true,
      pageSize: 100,
      fields: "nextPageToken,drives(id,name,restrictions)",
    };
    try {
      for await (const page of pagesByToken<TGDriveList>(admin, "/drive/v3/drives", query)) {
        for (const drive of page.drives ?? []) if (drive.id) yield { ...drive, id: drive.id };
      }
    } catch (error) {
      const reason = refusal(error);
      if (reason === null) throw error;
      gaps.add(
        GOOGLE_FEATURE.sharedDrives,
        `${GOOGLE_SCOPE.drive} as a domain administrator`,
        `Listing the tenant's shared drives was refused: ${reason}`,
      );
    }
  }

  async function driveMembers(driveId: string): Promise<TGDrivePermission[]> {
    const known = drives.get(driveId);
    if (known) return known.members;
    const members: TGDrivePermission[] = [];
    try {
      for await (const member of listPermissions(admin, driveId, true)) members.push(member);
    } catch (error) {
      const reason = refusal(error);
      if (reason === null) throw error;
      gaps.add(GOOGLE_FEATURE.sharedDrives, "these shared drives' members", reason, driveId);
    }
    return members;
  }

  /** The members worth impersonating to read a drive: active internal users, organizers first. */
  async function readers(members: TGDrivePermission[]): Promise<string[]> {
    if (!deps.delegated) return [deps.adminSubject];
    const internal = new Set((await deps.internalDomains()).map((d) => d.toLowerCase()));
    return members
      .filter((m) => m.type === "user" && !m.deleted && m.emailAddress)
      .map((m) => ({ email: (m.emailAddress ?? "").toLowerCase(), rank: ROLE_ORDER.indexOf(m.role ?? "") }))
      .filter((m) => internal.has(emailDomain(m.email) ?? "") && !suspended.has(m.email))
      .sort((a, b) => (a.rank < 0 ? 99 : a.rank) - (b.rank < 0 ? 99 : b.rank))
      .map((m) => m.email)
      .slice(0, MAX_READERS_TRIED);
  }

  /**
   * A shared drive's files, listed as the first of its members who can be impersonated (files.list
   * takes no domain-admin access: a drive is only listed by someone in it). Records the count.
   */
  async function* driveFiles(
    drive: TGSharedDrive & { id: string },
    fields: "full" | "count",
  ): AsyncGenerator<{ client: TJsonClient; file: TGDriveFile }> {
    const members = await driveMembers(drive.id);
    const record = (fileCount: number, complete: boolean) =>
      drives.set(drive.id, { members, fileCount, complete });
    const problems: string[] = [];
    for (const subject of await readers(members)) {
      const client = deps.driveAs(subject);
      const extra = { ...ALL_DRIVES, corpora: "drive", driveId: drive.id, q: "trashed = false" };
      const query =
        fields === "full"
          ? await fileQuery(extra)
          : { ...extra, pageSize: 1000, fields: "nextPageToken,files(id)" };
      let count = 0;
      try {
        for await (const page of pagesByToken<TGFileList>(client, FILES, query)) {
          for (const file of page.files ?? []) {
            count++;
            yield { client, file };
          }
        }
        record(count, true);
        return;
      } catch (error) {
        const reason = refusal(error);
        if (reason === null) throw error;
        if (count > 0) {
          record(count, false);
          gaps.add(
            GOOGLE_FEATURE.sharedDrives,
            "part of these shared drives' files",
            reason,
            drive.name ?? drive.id,
          );
          return;
        }
        problems.push(`${subject}: ${reason}`);
      }
    }
    record(0, false);
    gaps.add(
      GOOGLE_FEATURE.sharedDrives,
      "a member to read these shared drives' files as",
      deps.delegated
        ? "No active internal user member of these shared drives could be impersonated, so their files " +
            "were not read and their file count is 0" +
            (problems.length ? ` (${problems.slice(0, 3).join("; ")})` : "")
        : "The access token's user is not a member of these shared drives, so their files were not " +
            "read and their file count is 0; a service account with domain-wide delegation reads them " +
            "through one of their members",
      drive.name ?? drive.id,
    );
  }

  async function* singleCallerFiles(): AsyncGenerator<TSourceFile> {
    gaps.add(
      GOOGLE_FEATURE.files,
      "a service account with domain-wide delegation",
      "Connected with an access token, only the files its own user can see are read: files the " +
        "other users keep to themselves are missed. Connect a service account with domain-wide " +
        "delegation to read every user's My Drive",
    );
    const query = await fileQuery({ ...ALL_DRIVES, corpora: "allDrives", q: "trashed = false" });
    for await (const page of pagesByToken<TGFileList>(admin, FILES, query)) {
      for (const file of page.files ?? []) yield await toSourceFile(admin, file);
    }
  }

  return {
    /** What the change feed (changes.ts) reads with: the same users, drives, readers and mapping. */
    parts: {
      fileQuery,
      toSourceFile,
      ownedFiles,
      activeUsers,
      adminDrives,
      driveMembers,
      readers,
      /** The files of a shared drive, through its first readable member; false when not all were listed. */
      async *sharedDriveFiles(drive: TGSharedDrive & { id: string }): AsyncGenerator<TSourceFile, boolean> {
        for await (const { client, file } of driveFiles(drive, "full"))
          yield await toSourceFile(client, file);
        return drives.get(drive.id)?.complete === true;
      },
    },

    async *files(): AsyncGenerator<TSourceFile> {
      const seen = new Set<string>();
      const once = async function* (files: AsyncIterable<TSourceFile>) {
        for await (const file of files) {
          if (seen.has(file.id)) continue;
          seen.add(file.id);
          yield file;
        }
      };
      if (!deps.delegated) {
        yield* once(singleCallerFiles());
        return;
      }
      yield* once(mergeBounded(activeUsers(), deps.concurrency, userFiles));
      yield* once(
        mergeBounded(adminDrives(), deps.concurrency, async function* (drive) {
          for await (const { client, file } of driveFiles(drive, "full"))
            yield await toSourceFile(client, file);
        }),
      );
    },

    async *sharedDrives(): AsyncGenerator<TSharedDrive> {
      for await (const drive of adminDrives()) {
        if (!drives.has(drive.id)) for await (const listed of driveFiles(drive, "count")) void listed;
        const read = drives.get(drive.id) ?? { members: [], fileCount: 0, complete: false };
        yield mapSharedDrive(drive, read.members, read.fileCount);
      }
    },
  };
}
