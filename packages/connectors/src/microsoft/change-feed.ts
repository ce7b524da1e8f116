import { readJson, type THttpOptions, type TJsonClient, type TQuery } from "../http/client";
import { apiErrorMessage, SourceHttpError } from "../http/errors";
import {
  ChangeCursorExpiredError,
  SourceUnavailableError,
  type TChangeCursor,
  type TChangeFeed,
  type TChangeRead,
  type TFileChange,
  type TSourceFile,
} from "../types";
import { INCREMENTAL_FILES_ACCESS } from "./access";
import { type TMsDrive, type TMsDriveItem } from "./api-types";
import { denial } from "./denial";
import { isLibrary } from "./map";

// Microsoft 365's file change feed: Graph's drive delta (`GET /drives/{id}/root/delta`), one
// `@odata.deltaLink` per drive the full read covers. Items come back in their latest state: a file
// is mapped exactly as the full read maps it (permissions and label read again), a `deleted` one
// is removed. OneDrive for Business and SharePoint report a deleted folder alone, never what was in
// it, so a folder deletion re-reads that drive whole. See docs/sources/microsoft-365.md.

export const MICROSOFT_CURSOR_SOURCE = "microsoft_365";
/** The cursor's shape; a cursor of another format is expired (the scan reads everything). */
const FORMAT = "graph-drive-delta/1";

/**
 * Graph reports permission-only changes (a link created or removed, a grant changed) to an app
 * only with these preferences and Sites.FullControl.All (driveItem: delta, "Scanning permissions
 * hierarchies"); without them it scopes them away and the feed would lose sharing changes.
 */
export const DELTA_PREFER = "deltashowremovedasdeleted, deltatraversepermissiongaps, deltashowsharingchanges";
export const SHARING_CHANGES_PERMISSION = INCREMENTAL_FILES_ACCESS.permission;

/** Error codes of a delta token Graph can no longer serve (410 Gone, or 400 for directory objects). */
const RESYNC_CODES = new Set([
  "resyncRequired",
  "resyncChangesApplyDifferences",
  "resyncChangesUploadDifferences",
  "syncStateNotFound",
  "syncStateInvalid",
]);

type TDeltaPage = { value?: TMsDriveItem[]; "@odata.nextLink"?: string; "@odata.deltaLink"?: string };

export type TDriveFeedSource = {
  /** A Graph client whose requests carry `Prefer: DELTA_PREFER` (see `preferDelta`). */
  graph: TJsonClient;
  /** The drives the full read covers: SharePoint libraries, then each directory user's OneDrive. */
  libraries: () => AsyncIterable<TMsDrive>;
  userIds: () => Promise<Iterable<string>>;
  userDrives: (userId: string) => AsyncIterable<TMsDrive>;
  /** A file item as the full read maps it (its permissions and label read). */
  fileOf: (drive: TMsDrive, item: TMsDriveItem) => Promise<TSourceFile>;
  /** The owner's email of a personal drive: its files' `ownerEmail`. */
  ownerEmail: (drive: TMsDrive) => Promise<string>;
  /** The roles of the app's Graph token. */
  roles: () => Promise<ReadonlySet<string>>;
};

/** Transport options whose requests all carry the delta preferences. */
export function preferDelta(http: THttpOptions = {}): THttpOptions {
  const base = http.fetch ?? fetch;
  return {
    ...http,
    fetch: (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set("prefer", DELTA_PREFER);
      return base(input, { ...init, headers });
    },
  };
}

/** Files whose permissions and label are read at once (Graph throttles per app and tenant). */
export const FILE_READS_AT_ONCE = 8;

const deltaPath = (driveId: string) => `/v1.0/drives/${encodeURIComponent(driveId)}/root/delta`;
const driveKey = (driveId: string) => `drive:${driveId}`;
const ownerKey = (driveId: string) => `owner:${driveId}`;
const oneDriveKey = (userId: string) => `onedrive:${userId}`;

/** What one drive's pages ended with: its next deltaLink, a deleted folder, or the drive gone (404). */
type TDriveEnd = { deltaLink: string } | { folderDeleted: true } | { missing: true };

export function createDriveChangeFeed(source: TDriveFeedSource): TChangeFeed {
  const { graph } = source;

  /**
   * The drives the full read covers. A user whose OneDrive the cursor knows is not asked again
   * (one request per user per scan saved; a OneDrive keeps its id): its drive is rebuilt from the
   * cursor, and one that has gone since answers 404 to its delta.
   */
  async function* drives(known: Record<string, string>): AsyncGenerator<TMsDrive> {
    const seen = new Set<string>();
    const fresh = (id: string | undefined): id is string => {
      if (!id || seen.has(id)) return false;
      seen.add(id);
      return true;
    };
    for await (const drive of source.libraries()) if (fresh(drive.id)) yield drive;
    for (const userId of await source.userIds()) {
      const driveId = known[oneDriveKey(userId)];
      if (driveId) {
        if (fresh(driveId)) yield { id: driveId, driveType: "business", owner: { user: { id: userId } } };
        continue;
      }
      for await (const drive of source.userDrives(userId)) if (fresh(drive.id)) yield drive;
    }
  }

  /** Where a drive's feed stands in a cursor: its deltaLink and, for a OneDrive, whose it is. */
  async function position(drive: TMsDrive, deltaLink: string): Promise<Record<string, string>> {
    const id = drive.id ?? "";
    if (isLibrary(drive)) return { [driveKey(id)]: deltaLink };
    const userId = drive.owner?.user?.id;
    return {
      [driveKey(id)]: deltaLink,
      [ownerKey(id)]: await source.ownerEmail(drive),
      ...(userId ? { [oneDriveKey(userId)]: id } : {}),
    };
  }

  /** Why the feed cannot report every change (the app lacks Sites.FullControl.All), or null. */
  async function unusable(): Promise<string | null> {
    if ((await source.roles()).has(SHARING_CHANGES_PERMISSION)) return null;
    return `Microsoft 365: incremental scans need the application permission ${SHARING_CHANGES_PERMISSION}: without it Graph's drive delta leaves out permission-only changes, so every scan reads every file.`;
  }

  /** One delta page; null when the drive is gone. A token Graph cannot serve expires the cursor. */
  async function page(url: string, query: TQuery | undefined, feed: string): Promise<TDeltaPage | null> {
    const response = await graph.send("GET", url, query);
    if (response.status === 404) {
      await response.body?.cancel();
      return null;
    }
    if (response.status === 410 || response.status === 400) {
      const body: unknown = await response
        .clone()
        .json()
        .catch(() => null);
      const code = (body as { error?: { code?: unknown } } | null)?.error?.code;
      if (response.status === 410 || (typeof code === "string" && RESYNC_CODES.has(code))) {
        throw new ChangeCursorExpiredError(
          `Microsoft 365: the delta token of ${feed} expired (HTTP ${response.status} ${String(code)}: ${apiErrorMessage(body, response.statusText)})`,
          feed,
        );
      }
    }
    return readJson<TDeltaPage>("Microsoft 365", response);
  }

  /**
   * Follows one drive's delta from `url` to its deltaLink, yielding its file changes. From a token
   * (`incremental`), a deleted folder stops it: what was under the folder is not reported.
   */
  async function* follow(
    drive: TMsDrive,
    start: { url: string; query?: TQuery },
    incremental: boolean,
  ): AsyncGenerator<TFileChange, TDriveEnd> {
    const feed = driveKey(drive.id ?? "");
    let next: { url: string; query?: TQuery } = start;
    for (;;) {
      const current = await page(next.url, next.query, feed);
      if (!current) return { missing: true };
      const items = current.value ?? [];
      const folderAt = incremental ? items.findIndex((i) => i.deleted && i.folder) : -1;
      const before = folderAt >= 0 ? items.slice(0, folderAt) : items;
      // Each changed file costs its permissions and label: a few at once, reported in feed order.
      for (let at = 0; at < before.length; at += FILE_READS_AT_ONCE) {
        const chunk = before.slice(at, at + FILE_READS_AT_ONCE);
        for (const change of await Promise.all(chunk.map((item) => changeOf(drive, item)))) {
          if (change) yield change;
        }
      }
      if (folderAt >= 0) return { folderDeleted: true };
      const nextLink = current["@odata.nextLink"];
      if (nextLink) {
        next = { url: nextLink };
        continue;
      }
      const deltaLink = current["@odata.deltaLink"];
      if (!deltaLink) throw new SourceUnavailableError(`Microsoft 365: a delta page of ${feed} has no link`);
      return { deltaLink };
    }
  }

  /** What one delta item means for the store: nothing for a folder (or a package, as the full read). */
  async function changeOf(drive: TMsDrive, item: TMsDriveItem): Promise<TFileChange | null> {
    if (!item.id) return null;
    // Removing an id that was a folder, or was never stored, changes nothing.
    if (item.deleted) return { kind: "removed", fileId: item.id };
    if (!item.file) return null;
    const file = await mapped(drive, item);
    return file ? { kind: "file", file } : { kind: "removed", fileId: item.id };
  }

  /** The file as the full read maps it; null when it was deleted since its delta page (404). */
  async function mapped(drive: TMsDrive, item: TMsDriveItem): Promise<TSourceFile | null> {
    try {
      return await source.fileOf(drive, item);
    } catch (error) {
      if (error instanceof SourceHttpError && error.status === 404) return null;
      throw error;
    }
  }

  return {
    async start(): Promise<TChangeCursor> {
      const reason = await unusable();
      if (reason) return { source: MICROSOFT_CURSOR_SOURCE, feeds: { format: FORMAT, unusable: reason } };
      const feeds: Record<string, string> = { format: FORMAT };
      try {
        for await (const drive of drives({})) {
          const id = drive.id ?? "";
          const latest = await page(deltaPath(id), { token: "latest" }, driveKey(id));
          const deltaLink = latest?.["@odata.deltaLink"];
          // A drive deleted since it was listed has nothing to follow.
          if (deltaLink) Object.assign(feeds, await position(drive, deltaLink));
        }
      } catch (error) {
        const message = denial(error);
        if (!message) throw error;
        // The full read that follows records the gap; the next scan reads in full again.
        return {
          source: MICROSOFT_CURSOR_SOURCE,
          feeds: { format: FORMAT, unusable: `Microsoft 365: files were not readable: ${message}` },
        };
      }
      return { source: MICROSOFT_CURSOR_SOURCE, feeds };
    },

    read(since: TChangeCursor): TChangeRead {
      let after: Record<string, string> | null = null;
      async function* changes(): AsyncGenerator<TFileChange> {
        const feeds = since.feeds;
        if (since.source !== MICROSOFT_CURSOR_SOURCE || feeds.format !== FORMAT) {
          throw new ChangeCursorExpiredError(
            `Microsoft 365: the stored cursor is not a ${FORMAT} cursor (${since.source}, ${feeds.format ?? "no format"})`,
          );
        }
        const reason = feeds.unusable ?? (await unusable());
        if (reason) throw new ChangeCursorExpiredError(reason);
        const next: Record<string, string> = { format: FORMAT };
        const seen = new Set<string>();
        try {
          for await (const drive of drives(feeds)) {
            const id = drive.id ?? "";
            seen.add(id);
            const owner = isLibrary(drive) ? null : await source.ownerEmail(drive);
            // Every stored file of the drive that this read does not report again is gone.
            const gone: TFileChange =
              owner === null ? { kind: "driveGone", driveId: id } : { kind: "ownerGone", ownerEmail: owner };
            const link = feeds[driveKey(id)];
            // A OneDrive whose owner's email changed: its stored files still carry the old one.
            const formerOwner = feeds[ownerKey(id)];
            const renamed = owner !== null && formerOwner !== undefined && formerOwner !== owner;
            if (renamed) yield { kind: "ownerGone", ownerEmail: formerOwner };
            let end: TDriveEnd =
              link && !renamed ? yield* follow(drive, { url: link }, true) : { folderDeleted: true };
            // A drive new to the cursor, renamed, or whose deleted folder hid what it held: read it whole.
            if ("folderDeleted" in end) {
              yield gone;
              end = yield* follow(drive, { url: deltaPath(id) }, false);
            }
            // The drive was deleted while it was read (404).
            if (!("deltaLink" in end)) {
              yield gone;
              continue;
            }
            Object.assign(next, await position(drive, end.deltaLink));
          }
        } catch (error) {
          const message = denial(error);
          if (!message) throw error;
          throw new ChangeCursorExpiredError(`Microsoft 365: files are no longer readable: ${message}`);
        }
        for (const key of Object.keys(feeds)) {
          if (!key.startsWith("drive:")) continue;
          const id = key.slice("drive:".length);
          if (seen.has(id)) continue;
          const owner = feeds[ownerKey(id)];
          yield owner === undefined
            ? { kind: "driveGone", driveId: id }
            : { kind: "ownerGone", ownerEmail: owner };
        }
        after = next;
      }
      return {
        changes: changes(),
        cursor: () => {
          if (!after) throw new Error("Microsoft 365: the change cursor is known once every change was read");
          return { source: MICROSOFT_CURSOR_SOURCE, feeds: after };
        },
      };
    },
  };
}
