import { SourceAuthError } from "../types";
import { GITHUB_FEATURE } from "./access";
import { isRefusal, logins, type TReadContext, type TUser } from "./reads";
import { type TGithubCollaborator, type TGithubDeployKey, type TGithubRepository } from "./types";

// The organization's repositories, each with its outside collaborators and deploy keys: the
// source's inventory, so a refusal here fails the scan (SourceAuthError) rather than leaving a gap.

type TRepo = {
  id: number;
  name: string;
  full_name: string;
  private: boolean;
  visibility?: string;
  fork: boolean;
  archived?: boolean;
  html_url: string;
  created_at?: string | null;
  pushed_at?: string | null;
};

type TDeployKey = {
  id: number;
  title: string;
  read_only: boolean;
  created_at: string;
  last_used?: string | null;
};

const visibilityOf = (repo: TRepo): TGithubRepository["visibility"] =>
  repo.visibility === "public" || repo.visibility === "internal" || repo.visibility === "private"
    ? repo.visibility
    : repo.private
      ? "private"
      : "public";

export async function* readRepositories(ctx: TReadContext): AsyncGenerator<TGithubRepository> {
  const { client, org } = ctx;
  // An organization without outside collaborators has none on any repository: one call saves one a repository.
  const outside = await logins(
    ctx,
    `/orgs/${org}/outside_collaborators`,
    {},
    {
      statuses: [403],
      feature: GITHUB_FEATURE.members,
      detail: "Outside collaborators were not listed; each repository's are read instead",
    },
  );
  let keysReadable = true;
  const deployKeysOf = async (path: string): Promise<TGithubDeployKey[] | null> => {
    if (!keysReadable) return null;
    try {
      const keys: TGithubDeployKey[] = [];
      for await (const k of client.list<TDeployKey>(`${path}/keys`))
        keys.push({
          id: String(k.id),
          title: k.title,
          readOnly: k.read_only,
          createdAt: k.created_at,
          lastUsedAt: k.last_used ?? null,
        });
      return keys;
    } catch (error) {
      if (!isRefusal(error, 403)) throw error;
      // The permission is the installation's, not the repository's: one refusal answers for all.
      keysReadable = false;
      ctx.gap(GITHUB_FEATURE.deployKeys, error, "Deploy keys were not read");
      return null;
    }
  };
  try {
    for await (const repo of client.list<TRepo>(`/orgs/${org}/repos`, { type: "all", sort: "full_name" })) {
      const path = `/repos/${repo.full_name.split("/").map(encodeURIComponent).join("/")}`;
      const collaborators: TGithubCollaborator[] = [];
      if (outside === null || outside.size > 0)
        for await (const c of client.list<TUser & { role_name?: string }>(`${path}/collaborators`, {
          affiliation: "outside",
        }))
          collaborators.push({ id: String(c.id), login: c.login, role: c.role_name ?? "read" });
      yield {
        id: String(repo.id),
        name: repo.name,
        fullName: repo.full_name,
        visibility: visibilityOf(repo),
        fork: repo.fork,
        archived: repo.archived ?? false,
        htmlUrl: repo.html_url,
        createdAt: repo.created_at ?? null,
        pushedAt: repo.pushed_at ?? null,
        outsideCollaborators: collaborators,
        deployKeys: await deployKeysOf(path),
      };
    }
  } catch (error) {
    if (isRefusal(error, 403, 404)) throw new SourceAuthError(error.message);
    throw error;
  }
}
