import type { TAssistantKind } from "../types";
import type { TMsAssignedLicense, TMsSubscribedSku } from "./api-types";

// Who holds Microsoft 365 Copilot (issue 30): the tenant's subscriptions (GET /subscribedSkus)
// name the Copilot SKUs; a user's `assignedLicenses` (a v1.0 `user` property: skuId and the
// disabledPlans GUIDs) say who holds one with at least one Copilot plan enabled.

/** Microsoft 365 Copilot's SKU part numbers (the SKU id 639dec6b-bb19-468b-871c-c5c441c4b0cb is `Microsoft_365_Copilot`). */
export const COPILOT_SKU_PART_NUMBERS: readonly string[] = [
  "Microsoft_365_Copilot",
  "Microsoft_365_Copilot_EDU",
  "Microsoft_365_Copilot_GCC",
  "Microsoft_Copilot_for_Microsoft_365",
];

/**
 * The service plans that make a SKU carry Microsoft 365 Copilot (a suite such as Copilot for
 * Sales bundles them): the work-grounded assistant in the apps, Teams, SharePoint and chat.
 * Copilot Studio and the free web-grounded Copilot Chat are not in it.
 */
export const COPILOT_SERVICE_PLANS: readonly string[] = [
  "M365_COPILOT_APPS",
  "M365_COPILOT_TEAMS",
  "M365_COPILOT_SHAREPOINT",
  "M365_COPILOT_BUSINESS_CHAT",
  "M365_COPILOT_INTELLIGENT_SEARCH",
];

/** A Copilot SKU's id and the ids of its Copilot plans (a user with every one disabled has no Copilot). */
export type TCopilotSkus = Map<string, Set<string>>;

export function copilotSkusOf(skus: readonly TMsSubscribedSku[]): TCopilotSkus {
  const out: TCopilotSkus = new Map();
  for (const sku of skus) {
    if (!sku.skuId) continue;
    const plans = (sku.servicePlans ?? []).filter((p) =>
      COPILOT_SERVICE_PLANS.includes(p.servicePlanName ?? ""),
    );
    const byName = COPILOT_SKU_PART_NUMBERS.includes(sku.skuPartNumber ?? "");
    if (!byName && plans.length === 0) continue;
    out.set(
      sku.skuId.toLowerCase(),
      new Set(plans.flatMap((p) => (p.servicePlanId ? [p.servicePlanId.toLowerCase()] : []))),
    );
  }
  return out;
}

/** The assistants a user's licences give: Copilot when one Copilot SKU is assigned with a Copilot plan left enabled. */
export function assistantsOf(
  licences: readonly TMsAssignedLicense[] | undefined,
  copilot: TCopilotSkus,
): TAssistantKind[] {
  for (const l of licences ?? []) {
    const plans = copilot.get((l.skuId ?? "").toLowerCase());
    if (!plans) continue;
    const disabled = new Set((l.disabledPlans ?? []).map((p) => p.toLowerCase()));
    if (plans.size === 0 || [...plans].some((p) => !disabled.has(p))) return ["copilot"];
  }
  return [];
}
