import type { TConnectorType } from "../../types";
import { GITHUB_KIT } from "./github-kit";
import { GOOGLE_KIT } from "./google-kit";
import type { TSourceKit } from "./kit";
import { MICROSOFT_KIT } from "./microsoft-kit";

/** Every source's kit, by type: a new connector type does not typecheck until it has one. */
const KIT_OF: Record<TConnectorType, TSourceKit> = {
  google_workspace: GOOGLE_KIT,
  microsoft_365: MICROSOFT_KIT,
  github: GITHUB_KIT,
};

/** Every real source's conformance kit: the suite runs over each (conformance.int.test.ts). */
export const SOURCE_KITS: readonly TSourceKit[] = Object.values(KIT_OF);
