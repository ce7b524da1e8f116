import { scopeOf, type TPrincipal } from "@posture/platform";
import type { TPlanScope } from "../services/plan";

/** The caller as the planning services see it: its organization, who, and whether a partner. */
export const planScope = (principal: TPrincipal): TPlanScope => ({
  ...scopeOf(principal),
  isPartner: principal.org.isPartner,
});
