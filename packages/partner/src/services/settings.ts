import { eq } from "drizzle-orm";
import { organizations, partnerSettings, type Db, type TReportSchedule } from "@posture/db";
import { audit, type TActor } from "@posture/platform";
import { fetchLogo, type TLogoFetcher } from "./logo";

export type TPartnerSettings = {
  name: string;
  reportSchedule: TReportSchedule;
  notifyUnhealthy: boolean;
  logoUrl: string | null;
  accentColor: string | null;
};

export type TSettingsPatch = Partial<TPartnerSettings>;

export async function getPartnerSettings(db: Db, { orgId }: { orgId: string }): Promise<TPartnerSettings> {
  const [row] = await db
    .select({ orgName: organizations.name, s: partnerSettings })
    .from(organizations)
    .leftJoin(partnerSettings, eq(partnerSettings.orgId, organizations.id))
    .where(eq(organizations.id, orgId));
  return {
    name: row?.s?.name ?? row?.orgName ?? "",
    reportSchedule: row?.s?.reportSchedule ?? "NONE",
    notifyUnhealthy: row?.s?.notifyUnhealthy ?? false,
    logoUrl: row?.s?.logoUrl ?? null,
    accentColor: row?.s?.accentColor ?? null,
  };
}

/**
 * PATCH /api/partner/settings. A new logoUrl is fetched here, once (the reports never fetch), and
 * before the transaction: a slow or refused logo holds no lock and changes nothing.
 */
export async function updatePartnerSettings(
  db: Db,
  o: { orgId: string; actor: TActor; patch: TSettingsPatch; fetcher: TLogoFetcher },
): Promise<TPartnerSettings> {
  const { patch } = o;
  const current = await getPartnerSettings(db, { orgId: o.orgId });
  let logo: { logo: Buffer | null; logoMime: string | null } | undefined;
  if (patch.logoUrl === null) logo = { logo: null, logoMime: null };
  else if (patch.logoUrl !== undefined && patch.logoUrl !== current.logoUrl) {
    const fetched = await fetchLogo(patch.logoUrl, o.fetcher);
    logo = { logo: fetched.bytes, logoMime: fetched.mime };
  }
  const values = {
    ...(patch.name !== undefined ? { name: patch.name } : {}),
    ...(patch.reportSchedule !== undefined ? { reportSchedule: patch.reportSchedule } : {}),
    ...(patch.notifyUnhealthy !== undefined ? { notifyUnhealthy: patch.notifyUnhealthy } : {}),
    ...(patch.logoUrl !== undefined ? { logoUrl: patch.logoUrl } : {}),
    ...(patch.accentColor !== undefined ? { accentColor: patch.accentColor?.toUpperCase() ?? null } : {}),
    ...logo,
    updatedAt: new Date(),
  };
  await db.transaction(async (tx) => {
    await tx
      .insert(partnerSettings)
      .values({ orgId: o.orgId, ...values })
      .onConflictDoUpdate({ target: partnerSettings.orgId, set: values });
    await audit(tx, o, {
      action: "PARTNER_SETTINGS_UPDATED",
      target: o.orgId,
      metadata: { fields: Object.keys(patch).sort() },
    });
  });
  return getPartnerSettings(db, { orgId: o.orgId });
}
