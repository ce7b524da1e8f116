import {
  ranksAbove,
  SourceUnavailableError,
  SourceWriteError,
  type TAppGrant,
  type TGrantImage,
  type TPermissionImage,
  type TSourceFile,
  type TSourceWriter,
  type TWriteAction,
  type TWriteFile,
  type TWriteGrant,
} from "@posture/connectors";

/** Where the fake writer's changes land: an in-memory tenant (or a scan's scripted tenant). */
export type TFakeSource = {
  file: (id: string) => TSourceFile | undefined;
  putFile: (file: TSourceFile) => void;
  grant: (id: string) => TAppGrant | undefined;
  removeGrant: (id: string) => void;
  putGrant: (grant: TAppGrant) => void;
};

/**
 * One call. `noop`: a change the real writers decide against after their own read (a role already
 * so, an owner already the one asked for), so no write reaches the source.
 */
export type TWriterCall = { method: keyof TSourceWriter; target: string; arg?: unknown; noop?: true };

/**
 * What the next matching call answers instead of acting: the source's refusal as the real writers
 * raise it (`SourceWriteError` with the vendor's status, code and message), a 5xx, or the source
 * unreachable. `times` calls are refused (default 1); `afterward` runs once the refusal is used up.
 */
export type TScriptedFailure = {
  method: keyof TSourceWriter;
  target?: string;
  error: () => Error;
  times?: number;
};

/** Google's documented error bodies, as the Drive and Directory APIs send them. */
export const GOOGLE_ERRORS = {
  forbidden: () =>
    new SourceWriteError(
      403,
      "insufficientFilePermissions",
      "The user does not have sufficient permissions for this file.",
    ),
  rateLimited: (retryAfterMs = 5) =>
    new SourceWriteError(429, "userRateLimitExceeded", "User Rate Limit Exceeded", retryAfterMs),
  backendError: () => new SourceWriteError(500, "backendError", "Backend Error"),
  unavailable: () => new SourceUnavailableError("Drive API unreachable after retries"),
};

export function createFakeSource(files: TSourceFile[], grants: TAppGrant[] = []): TFakeSource {
  const f = new Map(files.map((x) => [x.id, structuredClone(x)]));
  const g = new Map(grants.map((x) => [x.id, structuredClone(x)]));
  return {
    file: (id) => f.get(id),
    putFile: (x) => f.set(x.id, structuredClone(x)),
    grant: (id) => g.get(id),
    removeGrant: (id) => g.delete(id),
    putGrant: (x) => g.set(x.id, structuredClone(x)),
  };
}

/**
 * A TSourceWriter over a fake tenant that records every call, for the executor's tests: one
 * change per step is asserted on `changes()`. Google-like: a re-created permission keeps its id,
 * a revoked OAuth token cannot be granted back; with `grantsRestorable`, Graph-like: a revoked
 * grant is re-created under a new id.
 */
export function createFakeWriter(source: TFakeSource, opts: { grantsRestorable?: boolean } = {}) {
  const calls: TWriterCall[] = [];
  const revoked = new Map<string, TAppGrant>();
  const failures: TScriptedFailure[] = [];
  const refuse = (method: keyof TSourceWriter, target: string) => {
    const i = failures.findIndex(
      (s) => s.method === method && (s.target === undefined || s.target === target),
    );
    const f = failures[i];
    if (!f) return;
    f.times = (f.times ?? 1) - 1;
    if (f.times <= 0) failures.splice(i, 1);
    throw f.error();
  };
  const track = (method: keyof TSourceWriter, target: string, arg?: unknown, noop = false) => {
    calls.push({ method, target, ...(arg !== undefined ? { arg } : {}), ...(noop ? { noop: true } : {}) });
    refuse(method, target);
  };
  const fileOf = (file: TWriteFile) => {
    const f = source.file(file.id);
    if (!f) throw new SourceWriteError(404, "notFound", `File not found: ${file.id}.`);
    return f;
  };

  const writer: TSourceWriter = {
    requirements: () => [],
    reversibility: (action: TWriteAction) =>
      action === "revoke_oauth_grant" && !opts.grantsRestorable
        ? { reversible: false, reason: "Google cannot re-issue a revoked OAuth token" }
        : { reversible: true },
    readPermission: async (file, permissionId) => {
      track("readPermission", `${file.id}/${permissionId}`);
      const p = source.file(file.id)?.permissions.find((x) => x.id === permissionId);
      return p ? (structuredClone(p) as TPermissionImage) : null;
    },
    deletePermission: async (file, permissionId) => {
      track("deletePermission", `${file.id}/${permissionId}`);
      const f = source.file(file.id);
      if (!f || !f.permissions.some((p) => p.id === permissionId)) return "already_gone";
      source.putFile({ ...f, permissions: f.permissions.filter((p) => p.id !== permissionId) });
      return "applied";
    },
    updatePermissionRole: async (file, permissionId, role, how = "lower") => {
      const f = source.file(file.id);
      const p = f?.permissions.find((x) => x.id === permissionId);
      // As the real writers: a downgrade compares by rank, so it never raises a permission.
      const already = !f || !p || (how === "lower" ? !ranksAbove(p.role, role) : p.role === role);
      track("updatePermissionRole", `${file.id}/${permissionId}`, role, already);
      if (already) return "already_gone";
      source.putFile({
        ...f,
        permissions: f.permissions.map((x) => (x.id === permissionId ? { ...x, role } : x)),
      });
      return "applied";
    },
    restorePermission: async (file, image) => {
      track("restorePermission", `${file.id}/${image.id}`);
      const f = fileOf(file);
      const { extra: _extra, ...permission } = image;
      source.putFile({ ...f, permissions: [...f.permissions.filter((p) => p.id !== image.id), permission] });
      return { id: image.id };
    },
    transferOwnership: async (file, toEmail) => {
      const f = source.file(file.id);
      track("transferOwnership", file.id, toEmail, f?.ownerEmail === toEmail);
      if (!f) throw new SourceWriteError(404, "notFound", `File not found: ${file.id}.`);
      if (f.ownerEmail === toEmail) return "already_gone";
      source.putFile({ ...f, ownerEmail: toEmail });
      return "applied";
    },
    readGrant: async (grant: TWriteGrant) => {
      track("readGrant", grant.id);
      const g = source.grant(grant.id);
      return g ? ({ id: g.id, extra: { scopes: g.scopes } } satisfies TGrantImage) : null;
    },
    revokeGrant: async (grant) => {
      track("revokeGrant", grant.id);
      const g = source.grant(grant.id);
      if (!g) return "already_gone";
      revoked.set(grant.id, g);
      source.removeGrant(grant.id);
      return "applied";
    },
    ...(opts.grantsRestorable
      ? {
          restoreGrant: async (image: TGrantImage) => {
            track("restoreGrant", image.id);
            const g = revoked.get(image.id);
            if (!g)
              throw new SourceWriteError(
                404,
                "Request_ResourceNotFound",
                `Resource '${image.id}' does not exist.`,
              );
            const id = `${image.id}-restored`;
            source.putGrant({ ...g, id });
            return { id };
          },
        }
      : {}),
  };

  const CHANGES = new Set<keyof TSourceWriter>([
    "deletePermission",
    "updatePermissionRole",
    "restorePermission",
    "transferOwnership",
    "revokeGrant",
    "restoreGrant",
  ]);
  return {
    writer,
    calls: () => [...calls],
    /**
     * The calls that write to the source (refused ones included: each was one try of a change; a
     * delete of what is gone too, as it is a request Google answers 404), not the `noop` ones.
     */
    changes: () => calls.filter((c) => CHANGES.has(c.method) && !c.noop),
    fail: (f: TScriptedFailure) => failures.push(f),
    reset: () => {
      calls.length = 0;
      failures.length = 0;
    },
  };
}

export type TFakeWriter = ReturnType<typeof createFakeWriter>;
