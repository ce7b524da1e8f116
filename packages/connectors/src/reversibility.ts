import type { TConnectorType, TPermission } from "./types";
import type { TReversibility, TWriteAction } from "./write";

const GOOGLE_TOKEN_REASON = "Google cannot re-issue a revoked OAuth token; the user must consent again";
const NEW_LINK_REASON =
  "Microsoft 365 cannot restore a deleted sharing link: a new link would have a new URL, so whoever held the old one stays locked out.";
const EVERYONE_CLAIM_REASON =
  "Microsoft 365 cannot put back a removed grant to Everyone or Everyone except external users: Graph's invite names users and groups (by email or object id), and these SharePoint claims are neither. Re-share the file with the claim in SharePoint if it must come back.";
const NO_RESTRICT_REASON =
  "Microsoft 365 cannot change a sharing link's scope in place (Graph updates a permission's roles only), and its links are never found by search: remove the link instead.";
const NO_TRANSFER_REASON =
  "OneDrive and SharePoint have no API to transfer a file's ownership: move or copy the file to another drive instead.";

const GITHUB_PRIVATE_REASON =
  "GitHub detaches a repository's public forks and drops the stars and watchers of people outside the organization when it is made private; making it public again does not bring them back.";
const GITHUB_DEPLOY_KEY_CAVEAT =
  "Undo adds the same public key back to the repository, so whoever holds its private key can push again; GitHub gives it a new id and creation date, and its last-used date starts over.";
const GITHUB_NO_SUCH_CHANGE = "GitHub has no such change: it applies to files, not repositories.";
const GITHUB_APP_REASON =
  "GitHub has no API for an organization to suspend or remove another app's installation: an owner uninstalls it in the organization's settings.";

/** GitHub (issue 31): a collaborator removed or lowered is put back (re-invited); visibility is one-way. */
function githubReversibility(action: TWriteAction): TReversibility {
  switch (action) {
    case "remove_external_user":
    case "downgrade_permission":
    case "remove_everyone_grant":
      return { reversible: true };
    case "remove_public_link":
      return { reversible: false, reason: GITHUB_PRIVATE_REASON };
    case "revoke_oauth_grant":
      return { reversible: false, reason: GITHUB_APP_REASON };
    case "delete_deploy_key":
      return { reversible: true, caveat: GITHUB_DEPLOY_KEY_CAVEAT };
    default:
      return { reversible: false, reason: GITHUB_NO_SUCH_CHANGE };
  }
}

/**
 * Whether a change of this kind can be put back on a source of this type, decided before any
 * call: the real writers, the sandbox (which mirrors its type) and the planner all answer with it.
 */
export function reversibilityOf(
  type: TConnectorType,
  action: TWriteAction,
  permission?: Pick<TPermission, "type">,
): TReversibility {
  if (type === "github") return githubReversibility(action);
  if (action === "delete_deploy_key")
    return { reversible: false, reason: "Deploy keys are GitHub's: this source has none." };
  if (type === "google_workspace")
    return action === "revoke_oauth_grant"
      ? { reversible: false, reason: GOOGLE_TOKEN_REASON }
      : { reversible: true };
  if (action === "transfer_ownership") return { reversible: false, reason: NO_TRANSFER_REASON };
  if (action === "restrict_org_wide_link") return { reversible: false, reason: NO_RESTRICT_REASON };
  // A group's grant is re-invited by the group's object id (POST …/invite, driveRecipient.objectId).
  if (action === "remove_everyone_grant") return { reversible: false, reason: EVERYONE_CLAIM_REASON };
  if (
    action === "remove_public_link" ||
    action === "remove_external_domain" ||
    action === "remove_org_wide_link"
  )
    return { reversible: false, reason: NEW_LINK_REASON };
  if (action === "remove_external_user" && (permission?.type === "anyone" || permission?.type === "domain"))
    return { reversible: false, reason: NEW_LINK_REASON };
  return { reversible: true };
}

export {
  EVERYONE_CLAIM_REASON,
  GITHUB_DEPLOY_KEY_CAVEAT,
  GITHUB_PRIVATE_REASON,
  NEW_LINK_REASON,
  NO_RESTRICT_REASON,
  NO_TRANSFER_REASON,
};
