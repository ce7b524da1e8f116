import type { TSourceFile } from "../types";
import type { TDeployKeyImage } from "../write";

// The demo organization's deploy keys under the sandbox's writes: an entry
// `dkey:<repository>:<key id>` is `{op: "removed"}` (a generated key deleted) or `{op: "added",
// title, key, readOnly}` (a key added back on undo, under a new id, as GitHub does). The demo
// adapter lays them over each repository's keys; the demo writer reads and writes them.

/** The overlay key of a repository's deploy key. */
export const deployKeyEntry = (fileId: string, keyId: string) => `dkey:${fileId}:${keyId}`;

/** A generated demo key's public key (the demo data has none): stable, so undo can find it again. */
export const demoPublicKey = (fileId: string, keyId: string) =>
  `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5demo/${fileId}/${keyId}`;

/** The repository's deploy keys as the sandbox has them now, with their public keys. */
export function demoDeployKeys(
  entries: ReadonlyMap<string, Record<string, unknown>>,
  file: TSourceFile,
): TDeployKeyImage[] {
  const prefix = `dkey:${file.id}:`;
  const keys: TDeployKeyImage[] = (file.repository?.deployKeys ?? []).flatMap((k) =>
    entries.get(`${prefix}${k.id}`)?.op === "removed"
      ? []
      : [{ id: k.id, title: k.title, readOnly: k.readOnly, key: demoPublicKey(file.id, k.id) }],
  );
  for (const [entry, change] of entries) {
    if (!entry.startsWith(prefix) || change.op !== "added") continue;
    const { title, key, readOnly } = change;
    if (typeof title === "string" && typeof key === "string" && typeof readOnly === "boolean")
      keys.push({ id: entry.slice(prefix.length), title, key, readOnly });
  }
  return keys;
}

/** The repositories (file ids) the sandbox changed a deploy key of. */
export const keyedRepositories = (entries: ReadonlyMap<string, Record<string, unknown>>): Set<string> =>
  new Set(
    [...entries.keys()].flatMap((k) => (k.startsWith("dkey:") ? [k.slice(5, k.lastIndexOf(":"))] : [])),
  );

/** The file with the sandbox's deploy keys (an unread key list stays unread). */
export function withDemoDeployKeys(
  entries: ReadonlyMap<string, Record<string, unknown>>,
  file: TSourceFile,
): TSourceFile {
  const repository = file.repository;
  if (!repository?.deployKeys) return file;
  return {
    ...file,
    repository: {
      ...repository,
      deployKeys: demoDeployKeys(entries, file).map(({ id, title, readOnly }) => ({ id, title, readOnly })),
    },
  };
}
