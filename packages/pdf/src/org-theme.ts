import { eq } from "drizzle-orm";
import { organizations, partnerSettings, type Db } from "@posture/db";
import { effectivePlan, PLANS } from "@posture/platform";
import { DEFAULT_THEME, themeOf, type TTheme } from "./theme";

/**
 * The look of an organization's reports: its managing partner's (logo, accent colour, name) when
 * that partner's plan includes whiteLabel, the product's own otherwise. Every document an
 * organization downloads (posture, gap, evidence, incident reports) is themed by this one function,
 * so a managed client never sees the product's name on one and the partner's on another.
 */
export async function reportTheme(db: Db, orgId: string): Promise<TTheme> {
  const [org] = await db
    .select({ managedBy: organizations.managedByOrgId })
    .from(organizations)
    .where(eq(organizations.id, orgId));
  if (!org?.managedBy) return DEFAULT_THEME;
  const [partner] = await db
    .select({
      name: organizations.name,
      plan: organizations.plan,
      gracePlan: organizations.gracePlan,
      graceEndsAt: organizations.graceEndsAt,
      isPartner: organizations.isPartner,
      brand: partnerSettings.name,
      accent: partnerSettings.accentColor,
      logo: partnerSettings.logo,
    })
    .from(organizations)
    .leftJoin(partnerSettings, eq(partnerSettings.orgId, organizations.id))
    .where(eq(organizations.id, org.managedBy));
  if (!partner?.isPartner || !PLANS[effectivePlan(partner).plan].features.whiteLabel) return DEFAULT_THEME;
  return themeOf({ accent: partner.accent, brandName: partner.brand ?? partner.name, logo: partner.logo });
}
