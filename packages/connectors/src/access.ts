import { GITHUB_ACCESS } from "./github/access";
import { GOOGLE_ACCESS } from "./google/access";
import { MICROSOFT_ACCESS } from "./microsoft/access";
import type { TAccessRequirement, TConnectorType } from "./types";

/** Every scope or permission (and licence) the connector of this type needs for its features. */
export function accessRequirementsOf(type: TConnectorType): readonly TAccessRequirement[] {
  if (type === "github")
    return GITHUB_ACCESS.map(({ feature, permission, licence, impact }) => ({
      feature,
      permission,
      ...(licence ? { licence } : {}),
      impact,
    }));
  return type === "google_workspace" ? GOOGLE_ACCESS : MICROSOFT_ACCESS;
}
