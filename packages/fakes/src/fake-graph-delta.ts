import { type TMsDriveItem, type TMsPermission } from "@posture/connectors/wire";
import { pageSize, type TFakeRequest, type TFakeResponse } from "./fake-server";
import { graphError } from "./graph-errors";

// Drive delta (`GET /drives/{id}/root/delta`) as Graph documents it ("driveItem: delta"): a change
// log per drive, so tokens are real positions in it. No token enumerates the drive's current items;
// `token=latest` answers no item and a deltaLink at the log's head; a token answers the latest state
// of every item changed since, deleted ones with the `deleted` facet (OneDrive for Business omits
// their name). Pages end in `@odata.nextLink` and the last one in `@odata.deltaLink`. A token the
// log no longer covers is `410 Gone` (`resyncRequired`) with a `Location` that starts over.
// OneDrive for Business and SharePoint quirks the fake keeps: deleting a folder reports the folder
// only, never its descendants; a permission-only change (sharing) is reported only to an app holding
// Sites.FullControl.All that sends `Prefer: deltashowremovedasdeleted, deltatraversepermissiongaps,
// deltashowsharingchanges`, annotated `@microsoft.graph.sharedChanged`; other callers see it scoped
// away, as Microsoft's scan guidance describes.

export type TFakeDriveItem = TMsDriveItem & { permissions?: TMsPermission[]; sensitivityLabelIds?: string[] };
export type TFakeDrive = {
  id?: string;
  driveType?: string;
  items: TFakeDriveItem[];
};

/** What a request needs beyond its URL: the app's roles (Sites.FullControl.All for sharing changes). */
type TCaller = { roles: ReadonlySet<string> };

type TDriveLog = {
  /** Tokens below this position are gone (the log was trimmed): 410. */
  floor: number;
  /** Last content or metadata change per current item. */
  content: Map<string, number>;
  /** Last permission-only change per current item. */
  sharing: Map<string, number>;
  /** Deleted items: where, and whether it was a folder. */
  tombstones: Map<string, { seq: number; folder: boolean }>;
};

/** The token of a delta request: the log position it reads from, and where its page starts. */
type TDeltaToken = {
  /** Drive id. */
  d: string;
  /** Changes after this position; absent: the drive's current items (a first enumeration). */
  s?: number;
  /** Upper bound of this round (fixed by its first page), and the last position already returned. */
  h?: number;
  a?: number;
};

const SHARING_PREFERENCES = [
  "deltashowremovedasdeleted",
  "deltatraversepermissiongaps",
  "deltashowsharingchanges",
];
const SHARING_ROLE = "Sites.FullControl.All";

const encode = (token: TDeltaToken) => Buffer.from(JSON.stringify(token)).toString("base64url");

function decode(raw: string): TDeltaToken | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
    const t = value as TDeltaToken;
    const isPos = (n: unknown) => n === undefined || (typeof n === "number" && Number.isInteger(n) && n >= 0);
    if (typeof t !== "object" || t === null || typeof t.d !== "string") return null;
    return isPos(t.s) && isPos(t.h) && isPos(t.a) ? t : null;
  } catch {
    return null;
  }
}

function prefers(req: TFakeRequest): Set<string> {
  const header = req.headers.prefer;
  const values = Array.isArray(header) ? header.join(",") : (header ?? "");
  return new Set(
    values
      .split(",")
      .map((v) => v.trim().toLowerCase())
      .filter(Boolean),
  );
}

export type TDriveDeltaLog = ReturnType<typeof createDriveDeltaLog>;

/**
 * The change log of every drive of `drives` (the fixture's, mutated in place by the fake's tenant
 * operations, which record each change here).
 */
export function createDriveDeltaLog(fakeMaxPage: number) {
  let seq = 0;
  const logs = new Map<string, TDriveLog>();

  const logOf = (drive: TFakeDrive): TDriveLog => {
    const id = drive.id ?? "";
    let log = logs.get(id);
    if (!log) {
      // Items present before any change get distinct positions, in the drive's order.
      log = { floor: 0, content: new Map(), sharing: new Map(), tombstones: new Map() };
      for (const item of drive.items) if (item.id) log.content.set(item.id, ++seq);
      logs.set(id, log);
    }
    return log;
  };

  /** The item and everything under it (children name their parent in `parentReference.id`). */
  function subtree(drive: TFakeDrive, itemId: string): TFakeDriveItem[] {
    const out: TFakeDriveItem[] = [];
    const walk = (id: string) => {
      for (const item of drive.items) {
        if (item.id === id) out.push(item);
      }
      for (const child of drive.items) {
        if (child.parentReference?.id === id && child.id && child.id !== id) walk(child.id);
      }
    };
    walk(itemId);
    return out;
  }

  const head = () => seq;

  return {
    /** Registers a drive (at the fake's start, or a new one) so its items have positions. */
    track: (drive: TFakeDrive) => void logOf(drive),
    forget: (driveId: string) => void logs.delete(driveId),

    /** An item added or changed (content, name, move, label): reported to every delta reader. */
    touched(drive: TFakeDrive, itemId: string) {
      const log = logOf(drive);
      log.tombstones.delete(itemId);
      log.content.set(itemId, ++seq);
    },

    /** Sharing changed on an item: it and everything inheriting from it have new permissions. */
    sharingChanged(drive: TFakeDrive, itemId: string) {
      const log = logOf(drive);
      for (const item of subtree(drive, itemId)) if (item.id) log.sharing.set(item.id, ++seq);
    },

    /** Removes an item and its subtree from the drive; only the item itself is reported deleted. */
    deleted(drive: TFakeDrive, itemId: string) {
      const log = logOf(drive);
      const gone = subtree(drive, itemId);
      const top = gone.find((i) => i.id === itemId);
      if (!top) return;
      const ids = new Set(gone.map((i) => i.id));
      drive.items.splice(0, drive.items.length, ...drive.items.filter((i) => !ids.has(i.id)));
      for (const id of ids) {
        if (!id) continue;
        log.content.delete(id);
        log.sharing.delete(id);
      }
      log.tombstones.set(itemId, { seq: ++seq, folder: Boolean(top.folder) });
    },

    /** Trims the log: every token issued so far for the drive (every drive: none given) is gone. */
    expire(driveId?: string) {
      // A new position, so that a token at the current head is told apart from the next one.
      const floor = ++seq;
      for (const [id, log] of logs) if (!driveId || id === driveId) log.floor = floor;
    },

    /** Serves one delta request on `drive`; `render` gives an item as Graph returns it. */
    serve(
      req: TFakeRequest,
      baseUrl: string,
      drive: TFakeDrive,
      caller: TCaller,
      render: (item: TFakeDriveItem) => object,
    ): TFakeResponse {
      const driveId = drive.id ?? "";
      const log = logOf(drive);
      const path = `/v1.0/drives/${encodeURIComponent(driveId)}/root/delta`;
      const link = (token: TDeltaToken) => {
        const params = new URLSearchParams(req.query);
        params.set("token", encode(token));
        return `${baseUrl}${path}?${params.toString()}`;
      };
      const raw = req.query.get("token");
      if (raw === "latest") {
        return { status: 200, body: { value: [], "@odata.deltaLink": link({ d: driveId, s: head() }) } };
      }
      const token = raw === null ? { d: driveId } : decode(raw);
      if (!token || token.d !== driveId || (token.s !== undefined && token.s < log.floor)) {
        const restart = new URLSearchParams(req.query);
        restart.delete("token");
        const location = `${baseUrl}${path}${restart.size > 0 ? `?${restart.toString()}` : ""}`;
        const gone = graphError(
          410,
          "resyncRequired",
          "Resync required. Replace any local items with the server's version (including deletes) if you're sure that the service was up to date with your local changes when you last sync'd. Upload any local changes that the server doesn't know about.",
        );
        const body = gone.body as { error: Record<string, unknown> };
        body.error.innerError = {
          ...(body.error.innerError as object),
          code: "resyncChangesApplyDifferences",
        };
        return { ...gone, headers: { location } };
      }

      const upTo = token.h ?? head();
      const after = Math.max(token.a ?? 0, token.s ?? 0);
      const sharingShown =
        caller.roles.has(SHARING_ROLE) && SHARING_PREFERENCES.every((p) => prefers(req).has(p));
      type TEntry = { seq: number; body: object };
      const entries: TEntry[] = [];
      for (const item of drive.items) {
        if (!item.id) continue;
        const content = log.content.get(item.id) ?? 0;
        const sharing = token.s !== undefined && sharingShown ? (log.sharing.get(item.id) ?? 0) : 0;
        const at = Math.max(content, sharing);
        if (at <= after || at > upTo) continue;
        const annotation = sharing > content ? { "@microsoft.graph.sharedChanged": "True" } : {};
        entries.push({ seq: at, body: { ...render(item), ...annotation } });
      }
      if (token.s !== undefined) {
        for (const [id, tomb] of log.tombstones) {
          if (tomb.seq <= after || tomb.seq > upTo) continue;
          const kind = tomb.folder ? { folder: {} } : { file: {} };
          const parentReference = { driveId, driveType: drive.driveType };
          entries.push({
            seq: tomb.seq,
            body: { id, parentReference, ...kind, deleted: { state: "deleted" } },
          });
        }
      }
      entries.sort((x, y) => x.seq - y.seq);
      const size = pageSize(req.query.get("$top"), 200, 999, fakeMaxPage);
      const page = entries.slice(0, size);
      const last = page[page.length - 1];
      const more = entries.length > size && last !== undefined;
      return {
        status: 200,
        body: {
          "@odata.context": `${baseUrl}/v1.0/$metadata#Collection(driveItem)`,
          value: page.map((e) => e.body),
          ...(more
            ? { "@odata.nextLink": link({ d: driveId, s: token.s, h: upTo, a: last.seq }) }
            : { "@odata.deltaLink": link({ d: driveId, s: upTo }) }),
        },
      };
    },
  };
}
