import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createSourceAdapter,
  type TAppGrant,
  type TFileChange,
  type TSharedDrive,
  type TSourceFile,
  type TSourceUser,
  type TWorkspace,
} from "@posture/connectors";
import {
  connectors,
  createEmbeddedDb,
  organizations,
  sharingApprovals,
  type Db,
  type DbHandle,
} from "@posture/db";
import { createTestDb } from "@posture/db/testing";
import { rowsOf } from "./rows";
import { openWorkspaceSnapshot, type TSnapshotMode } from "./snapshot-writer";
import { storeContent } from "./testing/store-content";

// An incremental snapshot (the stored state A plus a change feed's changes) must leave exactly
// the store a full snapshot of the end state B leaves: every row of the snapshot tables, the
// snapshot's counts and metrics, the owners' tallies and the organization's flow graph.

/** One connector's source, held whole: what a full read streams. */
type TState = { users: TSourceUser[]; files: TSourceFile[]; drives: TSharedDrive[]; grants: TAppGrant[] };

/** The value, known to be there (a failed lookup fails the test). */
function must<T>(value: T | undefined | null): T {
  if (value === undefined || value === null) throw new Error("expected a value");
  return value;
}

const NOW = new Date("2026-11-27T12:00:00.000Z");

async function newConnector(db: Db, name: string): Promise<{ orgId: string; connectorId: string }> {
  const [org] = await db.insert(organizations).values({ name, plan: "business" }).returning();
  const [c] = await db
    .insert(connectors)
    .values({ orgId: must(org).id, type: "google_workspace", displayName: name, mode: "demo", config: {} })
    .returning();
  return { orgId: must(org).id, connectorId: must(c).id };
}

async function demoState(
  connectorId: string,
  fileCount: number,
): Promise<TState & { workspace: TWorkspace }> {
  const a = createSourceAdapter({
    type: "google_workspace",
    mode: "demo",
    connectorId,
    credentials: undefined,
    config: { fileCount },
  });
  const state: TState = { users: [], files: [], drives: [], grants: [] };
  for await (const u of a.users()) state.users.push(u);
  for await (const f of a.files()) state.files.push(f);
  for await (const d of a.sharedDrives()) state.drives.push(d);
  for await (const g of a.appGrants()) state.grants.push(g);
  return { ...state, workspace: await a.workspace() };
}

type TTarget = { orgId: string; connectorId: string };

/** A snapshot as the scan writes one: users, files (or changes), shared drives, grants. */
async function write(
  db: Db,
  t: TTarget,
  workspace: TWorkspace,
  mode: TSnapshotMode,
  state: Omit<TState, "files">,
  files: { files?: TSourceFile[]; changes?: TFileChange[] },
) {
  const sink = await openWorkspaceSnapshot(db, { ...t, scanId: `scn_${mode}`, now: NOW, workspace, mode });
  try {
    for (const u of state.users) await sink.user(u);
    for (const f of files.files ?? []) await sink.file(f);
    for (const c of files.changes ?? []) {
      if (c.kind === "file") await sink.file(c.file);
      else if (c.kind === "removed") await sink.removeFile(c.fileId);
      else if (c.kind === "ownerGone") await sink.removeOwner(c.ownerEmail);
      else await sink.removeDrive(c.driveId);
    }
    for (const d of state.drives) await sink.drive(d);
    for (const g of state.grants) await sink.grant(g);
  } catch (err) {
    await sink.abort();
    throw err;
  }
  return sink.commit();
}

/** The files after the changes, by the feed's contract (written independently of the store). */
function applyChanges(files: readonly TSourceFile[], changes: readonly TFileChange[]): TSourceFile[] {
  const byId = new Map(files.map((f) => [f.id, f]));
  const reported = new Set<string>();
  const owners = new Set<string>();
  const drives = new Set<string>();
  for (const c of changes) {
    if (c.kind === "file") {
      byId.set(c.file.id, c.file);
      reported.add(c.file.id);
    } else if (c.kind === "removed") byId.delete(c.fileId);
    else if (c.kind === "ownerGone") owners.add(c.ownerEmail.toLowerCase());
    else drives.add(c.driveId);
  }
  for (const [id, f] of byId) {
    if (reported.has(id)) continue;
    const ownerGone = f.driveId === null && owners.has(f.ownerEmail.toLowerCase());
    if (ownerGone || (f.driveId !== null && drives.has(f.driveId))) byId.delete(id);
  }
  return [...byId.values()];
}

/** The transaction ids that last wrote each of the connector's stored rows. */
async function writers(db: Db, t: TTarget): Promise<string[]> {
  const tables = ["workspace_users", "workspace_files", "workspace_permissions", "workspace_shares"];
  const out: string[] = [];
  for (const table of [...tables, "workspace_drives", "workspace_snapshots"]) {
    const rows = rowsOf<{ x: string }>(
      await db.execute(
        sql`SELECT xmin::text AS x FROM ${sql.raw(table)} WHERE connector_id = ${t.connectorId}`,
      ),
    );
    out.push(...rows.map((r) => `${table}:${r.x}`));
  }
  for (const table of ["flow_nodes", "flow_edges", "flow_summaries"]) {
    const rows = rowsOf<{ x: string }>(
      await db.execute(sql`SELECT xmin::text AS x FROM ${sql.raw(table)} WHERE org_id = ${t.orgId}`),
    );
    out.push(...rows.map((r) => `${table}:${r.x}`));
  }
  return out.sort();
}

/** Each stored file's row (as JSON) and the transaction that last wrote it, by source id. */
async function fileVersions(db: Db, t: TTarget): Promise<Map<string, { x: string; row: string }>> {
  const rows = rowsOf<{ external_id: string; x: string; row: string }>(
    await db.execute(sql`
      SELECT external_id, xmin::text AS x, row_to_json(f)::text AS row FROM workspace_files f
      WHERE connector_id = ${t.connectorId}`),
  );
  return new Map(rows.map((r) => [r.external_id, { x: r.x, row: r.row }]));
}

const internalEmail = (state: TState, local: string) =>
  `${local}@${must(state.users[0]).email.split("@")[1]}`;

/**
 * The scripted changes between A and B: files added, changed (permission added, removed, role
 * changed, public link added and removed, label changed, renamed, moved to another owner),
 * removed, reported twice, removed and reported again; an owner gone and a shared drive gone;
 * users added, removed and suspended; shared drives changed.
 */
function script(a: TState, internal: readonly string[]) {
  const personal = a.files.filter((f) => f.driveId === null);
  const isPublic = (f: TSourceFile) => f.permissions.some((p) => p.type === "anyone");
  const externalUser = (f: TSourceFile) =>
    f.permissions.find(
      (p) =>
        p.type === "user" &&
        p.role !== "owner" &&
        !internal.includes((p.emailAddress ?? "").split("@")[1]?.toLowerCase() ?? ""),
    );
  const used = new Set<string>();
  const pick = (pred: (f: TSourceFile) => boolean, from: readonly TSourceFile[] = personal) => {
    const f = from.find((x) => !used.has(x.id) && pred(x));
    if (!f) throw new Error("the demo workspace has no file for this change");
    used.add(f.id);
    return f;
  };
  // The owner who leaves: one with several personal files; the drive that goes: one with files.
  const ownerCounts = new Map<string, number>();
  for (const f of personal) ownerCounts.set(f.ownerEmail, (ownerCounts.get(f.ownerEmail) ?? 0) + 1);
  const goneOwner = must([...ownerCounts].find(([, n]) => n >= 4))[0];
  const goneUser = must(a.users.find((u) => u.email === goneOwner));
  const ownerFiles = personal.filter((f) => f.ownerEmail === goneOwner);
  for (const f of ownerFiles) used.add(f.id);
  const driveCounts = new Map<string, number>();
  for (const f of a.files) if (f.driveId) driveCounts.set(f.driveId, (driveCounts.get(f.driveId) ?? 0) + 1);
  const goneDrive = must([...driveCounts].find(([, n]) => n >= 2))[0];
  for (const f of a.files) if (f.driveId === goneDrive) used.add(f.id);
  const keeper = must(a.users.find((u) => u.email !== goneOwner && !u.suspended));

  const publicAdded = pick((f) => !isPublic(f));
  const publicRemoved = pick(isPublic);
  const permissionAdded = pick((f) => !isPublic(f));
  const permissionsRemoved = pick((f) => f.permissions.filter((p) => p.role !== "owner").length >= 2);
  const roleChanged = pick((f) => externalUser(f)?.role === "reader");
  const relabelled = pick(() => true);
  const renamed = pick(() => true);
  const twice = pick(isPublic);
  const reAdded = pick(() => true);
  const removed = [pick(() => true), pick(isPublic)];
  const driveFile = pick(
    () => true,
    a.files.filter((f) => f.driveId !== null && f.driveId !== goneDrive),
  );
  const newUser: TSourceUser = {
    id: "u-new",
    email: internalEmail(a, "newcomer"),
    name: "Newcomer",
    isAdmin: false,
    mfaEnabled: false,
    suspended: false,
    lastLoginAt: null,
    createdAt: "2026-11-20T09:00:00.000Z",
  };
  const added = (n: number, owner: string, permissions: TSourceFile["permissions"]): TSourceFile => ({
    id: `new-${n}`,
    name: `Quarterly payroll ${n}.xlsx`,
    mimeType: "application/vnd.google-apps.spreadsheet",
    ownerEmail: owner,
    driveId: null,
    permissions: [{ id: `new-${n}-o`, type: "user", role: "owner", emailAddress: owner }, ...permissions],
    modifiedAt: "2026-11-26T10:00:00.000Z",
    sizeBytes: 1000 + n,
    label: n === 2 ? "Confidential" : null,
  });
  const role = must(externalUser(roleChanged));
  const changes: TFileChange[] = [
    { kind: "file", file: { ...twice, name: `${twice.name} (draft)`, permissions: [] } },
    {
      kind: "file",
      file: {
        ...publicAdded,
        permissions: [...publicAdded.permissions, { id: "anyone-x", type: "anyone", role: "writer" }],
      },
    },
    {
      kind: "file",
      file: { ...publicRemoved, permissions: publicRemoved.permissions.filter((p) => p.type !== "anyone") },
    },
    {
      kind: "file",
      file: {
        ...permissionAdded,
        permissions: [
          ...permissionAdded.permissions,
          { id: "partner-x", type: "user", role: "writer", emailAddress: "Pat@Brand-New-Partner.example" },
          { id: "domain-x", type: "domain", role: "reader", domain: "another-new-partner.example" },
        ],
      },
    },
    {
      kind: "file",
      file: {
        ...permissionsRemoved,
        permissions: permissionsRemoved.permissions.filter((p) => p.role === "owner"),
      },
    },
    {
      kind: "file",
      file: {
        ...roleChanged,
        permissions: roleChanged.permissions.map((p) =>
          p.id === role.id ? { ...p, role: "writer" as const } : p,
        ),
      },
    },
    { kind: "file", file: { ...relabelled, label: relabelled.label ? null : "Highly Confidential" } },
    { kind: "file", file: { ...renamed, name: "passwords and salaries.txt" } },
    {
      kind: "file",
      file: {
        ...driveFile,
        permissions: [...driveFile.permissions, { id: "anyone-d", type: "anyone", role: "reader" }],
      },
    },
    { kind: "file", file: added(1, keeper.email, [{ id: "new-1-a", type: "anyone", role: "reader" }]) },
    {
      kind: "file",
      file: added(2, newUser.email, [
        { id: "new-2-x", type: "user", role: "reader", emailAddress: "x@outside.example" },
      ]),
    },
    { kind: "file", file: added(3, keeper.email, []) },
    { kind: "file", file: added(4, keeper.email, []) },
    { kind: "removed", fileId: "new-4" },
    { kind: "removed", fileId: must(removed[0]).id },
    { kind: "removed", fileId: must(removed[1]).id },
    { kind: "removed", fileId: reAdded.id },
    { kind: "file", file: { ...reAdded, name: `${reAdded.name} (restored)` } },
    // Of the leaving owner's files, one moved to another owner and one still reported: both stay.
    { kind: "file", file: { ...must(ownerFiles[0]), ownerEmail: keeper.email, permissions: [] } },
    { kind: "file", file: must(ownerFiles[1]) },
    { kind: "ownerGone", ownerEmail: goneOwner.toUpperCase() },
    { kind: "driveGone", driveId: goneDrive },
    { kind: "file", file: { ...twice, label: "Restricted" } },
  ];
  const suspended = must(
    a.users.find((u) => !u.suspended && u.email !== goneOwner && u.email !== keeper.email),
  );
  const users = [
    ...a.users
      .filter((u) => u.id !== goneUser.id)
      .map((u) => (u.id === suspended.id ? { ...u, suspended: true } : u)),
    newUser,
  ];
  const exposedDrive = must(a.drives.find((d) => d.id !== goneDrive));
  const drives = a.drives
    .filter((d) => d.id !== goneDrive)
    .map((d) =>
      d.id === exposedDrive.id
        ? {
            ...d,
            members: [...d.members, { email: "guest@drive-partner.example", role: "reader" as const }],
            restrictions: { ...d.restrictions, domainUsersOnly: false },
          }
        : d,
    );
  const expectedRemoved = [
    must(removed[0]).id,
    must(removed[1]).id,
    ...ownerFiles.slice(2).map((f) => f.id),
    ...a.files.filter((f) => f.driveId === goneDrive).map((f) => f.id),
  ].sort();
  return {
    changes,
    users,
    drives,
    grants: a.grants.slice(1),
    roleChanged: { fileId: roleChanged.id },
    expectedRemoved,
  };
}

function suite(name: string, open: () => Promise<{ db: Db; close: () => Promise<void> }>, fileCount: number) {
  describe(`incremental snapshots (${name})`, () => {
    let db: Db;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ db, close } = await open());
    }, 120_000);
    afterAll(async () => {
      await close();
    });

    it("leaves exactly the store a full snapshot of the end state leaves, and writes nothing when nothing changed", async () => {
      const inc = await newConnector(db, "Incremental");
      const full = await newConnector(db, "Full");
      const a = await demoState(inc.connectorId, fileCount);
      const { workspace } = a;
      await write(db, inc, workspace, "full", a, { files: a.files });

      const s = script(a, workspace.internalDomains);
      // An approval of a sharing item whose file then changes: the item keeps its id and approval.
      const [item] = rowsOf<{ id: string }>(
        await db.execute(sql`
          SELECT id FROM workspace_shares WHERE connector_id = ${inc.connectorId}
            AND file_external_id = ${s.roleChanged.fileId} AND sharing_type = 'external_user'`),
      );
      expect(item).toBeDefined();
      const until = new Date(Date.now() + 30 * 86_400_000);
      await db.insert(sharingApprovals).values({
        orgId: inc.orgId,
        itemId: must(item).id,
        resourceName: "x",
        sharingType: "external_user",
        target: "x",
        reason: "contract",
        approvedBy: "admin@example.com",
        expiresAt: until,
      });

      const b: TState = { ...s, files: applyChanges(a.files, s.changes) };
      const result = await write(db, inc, workspace, "incremental", s, { changes: s.changes });
      const reference = await write(db, full, workspace, "full", b, { files: b.files });

      expect([...result.removedFileIds].sort()).toEqual(s.expectedRemoved);
      const { removedFileIds: _, storeBefore, storeAfter, ...totals } = result;
      const { removedFileIds: __, storeBefore: ___, storeAfter: ____, ...referenceTotals } = reference;
      expect(totals).toEqual(referenceTotals);
      // The store's version moved once, from the full snapshot's to this one's (the AI reach carry).
      expect({ storeBefore, storeAfter }).toEqual({
        storeBefore: { scanId: "scn_full", storeVersion: 0 },
        storeAfter: { scanId: "scn_incremental", storeVersion: 1 },
      });
      const got = await storeContent(db, inc);
      const want = await storeContent(db, full);
      expect(got.files.length).toBe(b.files.length);
      for (const k of Object.keys(want) as Array<keyof typeof want>)
        expect({ [k]: got[k] }).toEqual({ [k]: want[k] });
      // The changed file's item kept its id, and with it the approval.
      const [approved] = rowsOf<{ approved_until: Date | string | null }>(
        await db.execute(sql`SELECT approved_until FROM workspace_shares WHERE id = ${must(item).id}`),
      );
      expect(new Date(must(must(approved).approved_until)).getTime()).toBe(until.getTime());

      // Nothing changed: no row of the store, the snapshot or the graph is written.
      const before = await writers(db, inc);
      const again = await write(db, inc, workspace, "incremental", s, { changes: [] });
      // …and the snapshot says its files did not change, at the same version before and after.
      expect(again).toEqual({
        ...totals,
        removedFileIds: [],
        filesChanged: false,
        storeBefore: storeAfter,
        storeAfter,
      });
      expect(await writers(db, inc)).toEqual(before);
      expect(await storeContent(db, inc)).toEqual(got);
    });

    it("rescans in full over the stored state to exactly the store a first snapshot leaves, writing only the rows that changed", async () => {
      const rescan = await newConnector(db, "Full rescan");
      const first = await newConnector(db, "First snapshot");
      const a = await demoState(rescan.connectorId, fileCount);
      const { workspace } = a;
      await write(db, rescan, workspace, "full", a, { files: a.files });
      const s = script(a, workspace.internalDomains);
      const b: TState = { ...s, files: applyChanges(a.files, s.changes) };
      // A file changed by a statement that does not re-derive its rows forgets its digest: the
      // rescan writes it again although the source did not change it.
      const kept = must(b.files.find((f) => a.files.includes(f)));
      await db.execute(sql`
        UPDATE workspace_files SET size_bytes = size_bytes + 1, digest = NULL
        WHERE connector_id = ${rescan.connectorId} AND external_id = ${kept.id}`);
      const before = await fileVersions(db, rescan);

      const result = await write(db, rescan, workspace, "full", s, { files: b.files });
      const reference = await write(db, first, workspace, "full", s, { files: b.files });
      const { storeBefore: _, storeAfter: __, ...totals } = result;
      const { storeBefore: ___, storeAfter: ____, ...referenceTotals } = reference;
      expect(totals).toEqual(referenceTotals);
      const got = await storeContent(db, rescan);
      const want = await storeContent(db, first);
      for (const k of Object.keys(want) as Array<keyof typeof want>)
        expect({ [k]: got[k] }).toEqual({ [k]: want[k] });
      // Rewritten: exactly the files whose stored row is not what it was (new ones included).
      const after = await fileVersions(db, rescan);
      const rewritten = [...after].filter(([id, v]) => before.get(id)?.x !== v.x).map(([id]) => id);
      const differ = [...after].filter(([id, v]) => before.get(id)?.row !== v.row).map(([id]) => id);
      expect(rewritten.sort()).toEqual(differ.sort());
      expect(rewritten).toContain(kept.id);

      // Nothing changed since: no file, permission or sharing item is written.
      const unchanged = await writers(db, rescan);
      const again = await write(db, rescan, workspace, "full", s, { files: b.files });
      expect(again.filesChanged).toBe(false);
      const store = (w: string[]) => w.filter((x) => !x.startsWith("workspace_snapshots:"));
      expect(store(await writers(db, rescan))).toEqual(store(unchanged));
      expect(await storeContent(db, rescan)).toEqual(got);
    });

    if (fileCount > 2_000) {
      it("applies a feed longer than a batch, where a file's last report wins across batches", async () => {
        const inc = await newConnector(db, "Batches");
        const full = await newConnector(db, "Batches full");
        const a = await demoState(inc.connectorId, fileCount);
        await write(db, inc, a.workspace, "full", a, { files: a.files });
        const [first, second, ...rest] = a.files;
        const changes: TFileChange[] = [
          {
            kind: "file",
            file: { ...must(first), permissions: [{ id: "a1", type: "anyone", role: "writer" }] },
          },
          { kind: "removed", fileId: must(second).id },
          // Every other file reported again, unchanged or relabelled: more than a batch apart.
          ...rest.map((f, i) => ({
            kind: "file" as const,
            file: i % 7 === 0 ? { ...f, label: "Internal" } : f,
          })),
          { kind: "file", file: { ...must(first), name: "final name.docx" } },
          { kind: "file", file: { ...must(second), name: "back again.docx" } },
        ];
        const b: TState = { ...a, files: applyChanges(a.files, changes) };
        const result = await write(db, inc, a.workspace, "incremental", a, { changes });
        await write(db, full, a.workspace, "full", b, { files: b.files });
        expect(result.removedFileIds).toEqual([]);
        expect(await storeContent(db, inc)).toEqual(await storeContent(db, full));
      }, 60_000);
    }
  });
}

suite(
  "PostgreSQL",
  async () => {
    const t = await createTestDb();
    return { db: t.db, close: t.drop };
  },
  2_500,
);

suite(
  "PGlite, the embedded default",
  async () => {
    const h: DbHandle = await createEmbeddedDb();
    await h.migrate();
    return { db: h.db, close: h.close };
  },
  400,
);
