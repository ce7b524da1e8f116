import { eq } from "drizzle-orm";
import { organizations, type Db } from "@posture/db";
import { AppError } from "@posture/platform";
import { COMPLIANCE_FRAMEWORKS, type TComplianceFramework } from "../catalogs";
import {
  assessAll,
  crossGaps,
  evaluateFramework,
  tenantEvidenceIndex,
  type TCrossGap,
  type TFrameworkResult,
} from "../engine/evaluate";
import type { TSignals } from "../engine/signals";
import { gatherSignals } from "./signals";
import { GOOGLE_WORKSPACE_CHECKS, MICROSOFT_365_CHECKS, type TTenantCheck } from "@posture/benchmarks";

/** Every tenant-configuration check, both sources. */
export const TENANT_CHECKS: readonly TTenantCheck[] = [...GOOGLE_WORKSPACE_CHECKS, ...MICROSOFT_365_CHECKS];

export type TOrgEvaluation = {
  org: { id: string; name: string };
  signals: TSignals;
  results: TFrameworkResult[];
  crossGaps: TCrossGap[];
};

export async function orgName(db: Db, { orgId }: { orgId: string }): Promise<string> {
  const [org] = await db
    .select({ name: organizations.name })
    .from(organizations)
    .where(eq(organizations.id, orgId));
  if (!org) throw new AppError("not_found", "Organization not found");
  return org.name;
}

/** The frameworks asked for (all five by default), judged on one set of facts. */
export async function evaluateOrg(
  db: Db,
  o: {
    orgId: string;
    days: number;
    frameworks?: readonly TComplianceFramework[];
    now?: Date;
    /** The tenant-check catalog (tests inject their own); both benchmark catalogs by default. */
    tenantChecks?: readonly TTenantCheck[];
  },
): Promise<TOrgEvaluation> {
  const catalog = o.tenantChecks ?? TENANT_CHECKS;
  const [name, signals] = await Promise.all([
    orgName(db, { orgId: o.orgId }),
    gatherSignals(db, { ...o, tenantChecks: catalog }),
  ]);
  const kinds = assessAll(signals);
  const tenant = tenantEvidenceIndex(signals, catalog);
  const results = (o.frameworks ?? COMPLIANCE_FRAMEWORKS).map((f) => evaluateFramework(f, kinds, tenant));
  return { org: { id: o.orgId, name }, signals, results, crossGaps: crossGaps(results) };
}
