import { eq } from "drizzle-orm";
import { partnerSettings, type Db } from "@posture/db";
import { themeOf, type TTheme } from "@posture/pdf";
import { getPartnerSettings } from "./settings";

/** A partner's own reports carry its own brand (partner endpoints are enterprise+, which has whiteLabel). */
export async function partnerTheme(db: Db, partnerOrgId: string): Promise<{ theme: TTheme; name: string }> {
  const s = await getPartnerSettings(db, { orgId: partnerOrgId });
  const [row] = await db
    .select({ logo: partnerSettings.logo })
    .from(partnerSettings)
    .where(eq(partnerSettings.orgId, partnerOrgId));
  return {
    theme: themeOf({ accent: s.accentColor, brandName: s.name, logo: row?.logo ?? null }),
    name: s.name,
  };
}
