import type { TDeployKeyImage, TSourceWriter, TWriteFile } from "../write";
import { GithubApiError, type TGithubClient } from "./http";

// A repository's deploy key deleted (DELETE /repos/{owner}/{repo}/keys/{key_id}, its pre-image
// read first with GET …/keys/{key_id}) and, on undo, its public key added back
// (POST /repos/{owner}/{repo}/keys {title, key, read_only}): GitHub gives the key a new id, and
// refuses a public key the repository already has, so a retried undo finds it in the list first.

type TKeyBody = { id: number; title: string; key: string; read_only: boolean };

const keyImage = (k: TKeyBody): TDeployKeyImage => ({
  id: String(k.id),
  title: k.title,
  key: k.key,
  readOnly: k.read_only,
});

export function githubDeployKeyWrites(ctx: {
  client: TGithubClient;
  repoPath: (file: TWriteFile) => string;
  asWriteError: (error: unknown) => unknown;
}): Required<Pick<TSourceWriter, "readDeployKey" | "deleteDeployKey" | "restoreDeployKey">> {
  const { client, repoPath, asWriteError } = ctx;
  const keyPath = (file: TWriteFile, keyId: string) => `${repoPath(file)}/keys/${encodeURIComponent(keyId)}`;
  const readDeployKey = async (file: TWriteFile, keyId: string): Promise<TDeployKeyImage | null> => {
    // GitHub's key ids are integers: another id names no key (and would be refused as a path).
    if (!/^\d+$/.test(keyId)) return null;
    try {
      return keyImage(await client.get<TKeyBody>(keyPath(file, keyId)));
    } catch (error) {
      if (error instanceof GithubApiError && error.status === 404) return null;
      throw asWriteError(error);
    }
  };

  return {
    readDeployKey,
    deleteDeployKey: async (file, keyId) => {
      if ((await readDeployKey(file, keyId)) === null) return "already_gone";
      try {
        await client.send("DELETE", keyPath(file, keyId));
      } catch (error) {
        if (error instanceof GithubApiError && error.status === 404) return "already_gone";
        throw asWriteError(error);
      }
      return "applied";
    },
    restoreDeployKey: async (file, image) => {
      /** The repository's key with this public key, if it has it. */
      const present = async () => {
        for await (const k of client.list<TKeyBody>(`${repoPath(file)}/keys`))
          if (k.key.trim() === image.key.trim()) return String(k.id);
        return null;
      };
      try {
        // An undo retried after a crash: the key is back already (GitHub would refuse it twice).
        const back = await present();
        if (back !== null) return { id: back };
        const { body } = await client.send("POST", `${repoPath(file)}/keys`, {
          title: image.title,
          key: image.key,
          read_only: image.readOnly,
        });
        return { id: String((body as TKeyBody).id) };
      } catch (error) {
        // "key is already in use": a POST retried after a 5xx that GitHub had carried out.
        const back = error instanceof GithubApiError && error.status === 422 ? await present() : null;
        if (back !== null) return { id: back };
        throw asWriteError(error);
      }
    },
  };
}
