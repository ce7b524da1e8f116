import { indexOverlay, overlayFile, permissionEntry, stamp, type TOverlay } from "../demo/overlay";
import { reversibilityOf } from "../reversibility";
import type { TSourceFile } from "../types";
import { ranksAbove, type TDemoOverlayStore, type TSourceWriter } from "../write";
import {
  GITHUB_DEMO_ORG,
  githubDemoDrift,
  githubDemoIndexOf,
  githubDemoRepository,
  githubDemoRepositoryCount,
} from "./demo";
import { deployKeyEntry, demoDeployKeys } from "./demo-deploy-keys";
import { GITHUB_UNSUPPORTED, githubNotFound } from "./write";
import { repositoryFile, VISIBILITY_PERMISSION_ID } from "./source";

/**
 * The demo GitHub organization's writer: each change is an overlay entry (`perm:<repo>:<id>`, as
 * the file sandbox keys them, demo/overlay.ts) that the demo adapter lays over its reads. It does
 * what the real writer does (write.ts) and refuses what GitHub refuses: removing an outside
 * collaborator, changing their role, making a public or internal repository private, deleting a
 * deploy key (and adding it back under a new id, demo-deploy-keys.ts).
 */
export function createGithubDemoWriter(opts: {
  repositoryCount?: number | undefined;
  revision?: number | undefined;
  overlay: TDemoOverlayStore;
}): TSourceWriter {
  const count = githubDemoRepositoryCount(opts);
  // The organization at the connector's revision: what its revisions made public is there to undo.
  const drift = githubDemoDrift(opts);
  const store = opts.overlay;
  const load = async () => indexOverlay(await store.load());
  const put = (overlay: TOverlay, key: string, index: number, change: Record<string, unknown>) =>
    store.put(key, { ...change, i: index, v: stamp(overlay) });

  const locate = (overlay: TOverlay, fileId: string) => {
    const index = githubDemoIndexOf(fileId, count);
    if (index === null) return null;
    const base: TSourceFile = repositoryFile(GITHUB_DEMO_ORG, githubDemoRepository(index, drift));
    return { index, base, current: overlayFile(base, overlay.files.get(fileId), fileId) };
  };

  return {
    requirements: () => [],
    reversibility: (action, permission) => reversibilityOf("github", action, permission),
    readPermission: async (file, permissionId) => {
      const permission = locate(await load(), file.id)?.current.permissions.find(
        (p) => p.id === permissionId,
      );
      return permission ? { ...permission } : null;
    },
    deletePermission: async (file, permissionId) => {
      const overlay = await load();
      const located = locate(overlay, file.id);
      if (!located) throw githubNotFound();
      if (!located.current.permissions.some((p) => p.id === permissionId)) return "already_gone";
      await put(overlay, `perm:${file.id}:${permissionId}`, located.index, { op: "removed" });
      return "applied";
    },
    updatePermissionRole: async (file, permissionId, role, how = "lower") => {
      if (permissionId === VISIBILITY_PERMISSION_ID) throw GITHUB_UNSUPPORTED.visibilityRole();
      const overlay = await load();
      const located = locate(overlay, file.id);
      if (!located) throw githubNotFound();
      const permission = located.current.permissions.find((p) => p.id === permissionId);
      if (!permission) return "already_gone";
      if (how === "lower" ? !ranksAbove(permission.role, role) : permission.role === role)
        return "already_gone";
      const key = `perm:${file.id}:${permissionId}`;
      const generated = located.base.permissions.find((p) => p.id === permissionId);
      await put(overlay, key, located.index, permissionEntry(generated, { ...permission, role }));
      return "applied";
    },
    restorePermission: async (file, image) => {
      const overlay = await load();
      const located = locate(overlay, file.id);
      if (!located) throw githubNotFound();
      const { extra: _extra, ...permission } = image;
      const current = located.current.permissions.find((p) => p.id === image.id);
      if (current?.role === image.role) return { id: image.id };
      const key = `perm:${file.id}:${image.id}`;
      const generated = located.base.permissions.find((p) => p.id === image.id);
      await put(overlay, key, located.index, permissionEntry(generated, permission));
      return { id: image.id };
    },
    readDeployKey: async (file, keyId) => {
      const overlay = await load();
      const located = locate(overlay, file.id);
      if (!located) return null;
      return demoDeployKeys(overlay.entries, located.base).find((k) => k.id === keyId) ?? null;
    },
    deleteDeployKey: async (file, keyId) => {
      const overlay = await load();
      const located = locate(overlay, file.id);
      if (!located) throw githubNotFound();
      if (!demoDeployKeys(overlay.entries, located.base).some((k) => k.id === keyId)) return "already_gone";
      const key = deployKeyEntry(file.id, keyId);
      // A key the sandbox added back goes with its entry; a generated one is marked removed.
      if (overlay.entries.get(key)?.op === "added") await store.remove(key);
      else await put(overlay, key, located.index, { op: "removed" });
      return "applied";
    },
    restoreDeployKey: async (file, image) => {
      const overlay = await load();
      const located = locate(overlay, file.id);
      if (!located) throw githubNotFound();
      const back = demoDeployKeys(overlay.entries, located.base).find((k) => k.key === image.key);
      if (back) return { id: back.id };
      // As GitHub: the same public key under a new id.
      const id = `${image.id}-${stamp(overlay)}`;
      await put(overlay, deployKeyEntry(file.id, id), located.index, {
        op: "added",
        title: image.title,
        key: image.key,
        readOnly: image.readOnly,
      });
      return { id };
    },
    transferOwnership: async () => {
      throw GITHUB_UNSUPPORTED.transfer();
    },
    readGrant: async () => {
      throw GITHUB_UNSUPPORTED.installation();
    },
    revokeGrant: async () => {
      throw GITHUB_UNSUPPORTED.installation();
    },
  };
}
