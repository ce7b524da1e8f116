import { GOOGLE_ACCESS } from "./google/access";
import { MICROSOFT_ACCESS } from "./microsoft/access";
import type { TAccessRequirement, TConnectorType } from "./types";

/** Every scope or permission (and licence) the connector of this type needs for its features. */
export function accessRequirementsOf(type: TConnectorType): readonly TAccessRequirement[] {
  return type === "google_workspace" ? GOOGLE_ACCESS : MICROSOFT_ACCESS;
}
