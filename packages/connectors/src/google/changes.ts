import { readJson, type TJsonClient, type TQuery } from "../http/client";
import { apiErrorMessage } from "../http/errors";
import {
  ChangeCursorExpiredError,
  SourceUnavailableError,
  type TChangeCursor,
  type TChangeFeed,
  type TFileChange,
  type TSourceFile,
} from "../types";
import { GOOGLE_FEATURE } from "./access";
import { type TGChange, type TGChangeList, type TGSharedDrive, type TGStartPageToken } from "./api-types";
import { mergeBounded } from "./bounded";
import { type createDriveReader, FILE_FIELDS, refusal } from "./drive";
import { type TGapBook } from "./gaps";
import { type TLabelCatalogue } from "./labels";

// Drive's change feeds, read the way the full read (drive.ts) reads Drive: one feed per active
// user (their My Drive, as them) and one per shared drive (as one of its members). A user's feed
// speaks only for the files that user owns; whatever it cannot vouch for (a removal, a file now
// owned by someone this scan does not read, trashed or moved to a shared drive) is held back and
// reported `removed` at the end unless another feed reported the file. See
// docs/sources/google-workspace.md ("The change feed").

export const GOOGLE_CHANGE_SOURCE = "google_workspace";

const CHANGES = "/drive/v3/changes";
const START_TOKEN = "/drive/v3/changes/startPageToken";

type TDriveParts = ReturnType<typeof createDriveReader>["parts"];
type TDrive = TGSharedDrive & { id: string };

export type TChangeFeedDeps = {
  /** "Google Workspace": how errors name the source. */
  source: string;
  parts: TDriveParts;
  driveAs: (subject: string) => TJsonClient;
  labels: () => Promise<TLabelCatalogue | null>;
  gaps: TGapBook;
  concurrency: number;
};

/** What one feed's reading hands the merge: a file, a removal to hold back, the feed's next token. */
type TFeedEvent =
  | { kind: "file"; file: TSourceFile }
  | { kind: "drop"; fileId: string }
  | { kind: "gone"; change: TFileChange }
  | { kind: "token"; feed: string; token: string };

type TTask =
  { kind: "user"; email: string; token?: string } | { kind: "drive"; drive: TDrive; token?: string };

const lower = (value: string | undefined) => (value ?? "").toLowerCase();
const userFeed = (email: string) => `user:${lower(email)}`;
const driveFeed = (id: string) => `drive:${id}`;
const FEED_KEY = /^(user|drive):./;

/** Drive's answer to a page token it cannot use: 400 `invalid` on `pageToken` (documented), or 410. */
function isTokenRefusal(status: number, body: unknown): boolean {
  if (status === 410) return true;
  if (status !== 400) return false;
  const errors = (body as { error?: { errors?: Array<{ location?: unknown }> } } | null)?.error?.errors;
  return Array.isArray(errors) && errors.some((e) => e.location === "pageToken");
}

export function createDriveChangeFeed(deps: TChangeFeedDeps): TChangeFeed {
  const { parts, gaps, source } = deps;

  async function startToken(client: TJsonClient, driveId?: string): Promise<string> {
    const query = { supportsAllDrives: true, driveId, fields: "startPageToken" };
    const answer = await client.get<TGStartPageToken>(START_TOKEN, query);
    if (!answer.startPageToken) throw new SourceUnavailableError(`${source}: Drive gave no start page token`);
    return answer.startPageToken;
  }

  /** A shared drive's start page token, taken as the first of its readers who may. */
  async function driveStartToken(driveId: string): Promise<string | null> {
    for (const subject of await parts.readers(await parts.driveMembers(driveId))) {
      try {
        return await startToken(deps.driveAs(subject), driveId);
      } catch (error) {
        if (refusal(error) === null) throw error;
      }
    }
    return null;
  }

  async function changeQuery(extra: TQuery): Promise<TQuery> {
    const catalogue = await deps.labels();
    const withLabels = catalogue !== null && catalogue.ids.length > 0;
    const fileFields = `${FILE_FIELDS},trashed${withLabels ? ",labelInfo" : ""}`;
    return {
      pageSize: 1000,
      includeRemoved: true,
      spaces: "drive",
      supportsAllDrives: true,
      ...(withLabels ? { includeLabels: catalogue.ids.join(",") } : {}),
      fields: `nextPageToken,newStartPageToken,changes(changeType,removed,fileId,driveId,file(${fileFields}))`,
      ...extra,
    };
  }

  /** One page of a feed; a page token Drive will not take is ChangeCursorExpiredError. */
  async function changePage(client: TJsonClient, query: TQuery, feed: string): Promise<TGChangeList> {
    const response = await client.send("GET", CHANGES, query);
    if (response.status === 400 || response.status === 410) {
      const body: unknown = await response
        .clone()
        .json()
        .catch(() => null);
      if (isTokenRefusal(response.status, body))
        throw new ChangeCursorExpiredError(
          `${source}: Drive no longer takes the change feed's page token for ${feed} ` +
            `(HTTP ${response.status}: ${apiErrorMessage(body, response.statusText)})`,
          feed,
        );
    }
    return readJson<TGChangeList>(source, response);
  }

  /** A feed's changes from `token`, classified; last, the token its next read starts from. */
  async function* feedEvents(
    client: TJsonClient,
    feed: string,
    token: string,
    extra: TQuery,
    classify: (change: TGChange) => Promise<TFeedEvent | null>,
  ): AsyncGenerator<TFeedEvent> {
    const query = await changeQuery(extra);
    let pageToken = token;
    for (;;) {
      const page = await changePage(client, { ...query, pageToken }, feed);
      for (const change of page.changes ?? []) {
        const event = await classify(change);
        if (event) yield event;
      }
      if (page.nextPageToken) {
        pageToken = page.nextPageToken;
        continue;
      }
      if (!page.newStartPageToken)
        throw new SourceUnavailableError(
          `${source}: a change list of ${feed} ended without newStartPageToken`,
        );
      yield { kind: "token", feed, token: page.newStartPageToken };
      return;
    }
  }

  /**
   * A user's feed vouches for the files the user owns in My Drive. A file now owned by another
   * user this scan reads is that owner's feed's to report; anything else (removed, trashed, moved
   * to a shared drive, owned by someone not read) may have been this user's: held back as a removal.
   */
  const classifyUser =
    (email: string, client: TJsonClient, active: Set<string>) =>
    async (change: TGChange): Promise<TFeedEvent | null> => {
      const fileId = change.fileId ?? change.file?.id;
      if (change.changeType === "drive" || !fileId) return null;
      const file = change.file;
      if (change.removed || !file) return { kind: "drop", fileId };
      const owner = lower(file.owners?.[0]?.emailAddress);
      if (owner === email && !file.trashed && !file.driveId)
        return { kind: "file", file: await parts.toSourceFile(client, file) };
      if (owner !== email && !file.driveId && active.has(owner)) return null;
      return { kind: "drop", fileId };
    };

  /** A shared drive's feed vouches for every file in that drive. */
  const classifyDrive =
    (driveId: string, client: TJsonClient) =>
    async (change: TGChange): Promise<TFeedEvent | null> => {
      const fileId = change.fileId ?? change.file?.id;
      if (change.changeType === "drive" || !fileId) return null;
      const file = change.file;
      if (change.removed || !file || file.trashed || file.driveId !== driveId)
        return { kind: "drop", fileId };
      return { kind: "file", file: await parts.toSourceFile(client, file) };
    };

  const readFailed = (what: string, reason: string, item: string) =>
    gaps.add(
      GOOGLE_FEATURE.files,
      what,
      `Their change feed was refused, so their files are left out until it can be read: ${reason}`,
      item,
    );

  /** One user's changes since `token`; a user not in the cursor is listed whole (token first). */
  async function* userEvents(email: string, token: string | undefined, active: Set<string>) {
    const feed = userFeed(email);
    const client = deps.driveAs(email);
    if (token !== undefined) {
      try {
        const classify = classifyUser(lower(email), client, active);
        yield* feedEvents(client, feed, token, { restrictToMyDrive: true }, classify);
      } catch (error) {
        const reason = refusal(error);
        if (reason === null) throw error;
        // As in the full read: a user whose Drive cannot be read has no files; listed whole once it can.
        readFailed("these users' My Drive files", reason, email);
        yield { kind: "gone", change: { kind: "ownerGone", ownerEmail: lower(email) } } as const;
      }
      return;
    }
    let start: string;
    try {
      start = await startToken(client);
      for await (const file of parts.ownedFiles(email)) yield { kind: "file", file } as const;
    } catch (error) {
      const reason = refusal(error);
      if (reason === null) throw error;
      readFailed("these users' My Drive files", reason, email);
      return;
    }
    yield { kind: "token", feed, token: start } as const;
  }

  /** One shared drive's changes since `token`, as the first reader who may; a new drive is listed whole. */
  async function* driveEvents(drive: TDrive, token: string | undefined): AsyncGenerator<TFeedEvent> {
    const feed = driveFeed(drive.id);
    if (token === undefined) {
      const start = await driveStartToken(drive.id);
      const listing = parts.sharedDriveFiles(drive);
      let step = await listing.next();
      while (!step.done) {
        yield { kind: "file", file: step.value };
        step = await listing.next();
      }
      if (start !== null && step.value) yield { kind: "token", feed, token: start };
      return;
    }
    const problems: string[] = [];
    for (const subject of await parts.readers(await parts.driveMembers(drive.id))) {
      const client = deps.driveAs(subject);
      try {
        const extra = { driveId: drive.id, includeItemsFromAllDrives: true };
        yield* feedEvents(client, feed, token, extra, classifyDrive(drive.id, client));
        return;
      } catch (error) {
        const reason = refusal(error);
        if (reason === null) throw error;
        problems.push(`${subject}: ${reason}`);
      }
    }
    // As in the full read: a drive no member can read has no files; listed whole once one can.
    gaps.add(
      GOOGLE_FEATURE.sharedDrives,
      "a member to read these shared drives' changes as",
      "No active internal member could read these shared drives' change feeds, so their files are " +
        "left out until one can" +
        (problems.length ? ` (${problems.slice(0, 3).join("; ")})` : ""),
      drive.name ?? drive.id,
    );
    yield { kind: "gone", change: { kind: "driveGone", driveId: drive.id } };
  }

  return {
    async start(): Promise<TChangeCursor> {
      const feeds: Record<string, string> = {};
      async function* tasks(): AsyncGenerator<TTask> {
        for await (const email of parts.activeUsers()) yield { kind: "user", email };
        for await (const drive of parts.adminDrives()) yield { kind: "drive", drive };
      }
      const started = mergeBounded(tasks(), deps.concurrency, async function* (task) {
        if (task.kind === "drive") {
          const token = await driveStartToken(task.drive.id);
          if (token !== null) yield [driveFeed(task.drive.id), token] as const;
          return;
        }
        try {
          yield [userFeed(task.email), await startToken(deps.driveAs(task.email))] as const;
        } catch (error) {
          // The full read records why this user's Drive is not read; their next read lists them whole.
          if (refusal(error) === null) throw error;
        }
      });
      for await (const [feed, token] of started) feeds[feed] = token;
      return { source: GOOGLE_CHANGE_SOURCE, feeds };
    },

    read(since: TChangeCursor) {
      let next: Record<string, string> | null = null;
      async function* changes(): AsyncGenerator<TFileChange> {
        const badKey = Object.keys(since.feeds).find((key) => !FEED_KEY.test(key));
        if (since.source !== GOOGLE_CHANGE_SOURCE || badKey !== undefined)
          throw new ChangeCursorExpiredError(
            `${source}: the stored change cursor is not a Google Drive one (${since.source}${badKey ? `, ${badKey}` : ""})`,
          );
        const users = new Map<string, string>();
        for await (const email of parts.activeUsers()) users.set(lower(email), email);
        const drives = new Map<string, TDrive>();
        for await (const drive of parts.adminDrives()) drives.set(drive.id, drive);
        for (const key of Object.keys(since.feeds)) {
          const [kind, id] = [key.slice(0, key.indexOf(":")), key.slice(key.indexOf(":") + 1)];
          if (kind === "user" && !users.has(id)) yield { kind: "ownerGone", ownerEmail: id };
          if (kind === "drive" && !drives.has(id)) yield { kind: "driveGone", driveId: id };
        }
        const active = new Set(users.keys());
        async function* tasks(): AsyncGenerator<TTask> {
          for (const [key, email] of users) yield { kind: "user", email, token: since.feeds[userFeed(key)] };
          for (const drive of drives.values())
            yield { kind: "drive", drive, token: since.feeds[driveFeed(drive.id)] };
        }
        const feeds: Record<string, string> = {};
        // Removals are held back until every feed is read: a file reported by any feed stays.
        const reported = new Set<string>();
        const dropped = new Set<string>();
        const events = mergeBounded(tasks(), deps.concurrency, (task) =>
          task.kind === "user"
            ? userEvents(task.email, task.token, active)
            : driveEvents(task.drive, task.token),
        );
        for await (const event of events) {
          if (event.kind === "file") {
            reported.add(event.file.id);
            yield { kind: "file", file: event.file };
          } else if (event.kind === "drop") dropped.add(event.fileId);
          else if (event.kind === "gone") yield event.change;
          else feeds[event.feed] = event.token;
        }
        for (const fileId of dropped) if (!reported.has(fileId)) yield { kind: "removed", fileId };
        next = feeds;
      }
      return {
        changes: changes(),
        cursor: () => {
          if (next === null) throw new Error("The change cursor is known only once every change was read");
          return { source: GOOGLE_CHANGE_SOURCE, feeds: next };
        },
      };
    },
  };
}
