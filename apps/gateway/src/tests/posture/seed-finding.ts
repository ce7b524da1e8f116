import { connectors, findings, type Db } from "@posture/db";

/** One open CRITICAL finding on a demo source of the organization, written straight to the store. */
export async function seedFinding(db: Db, orgId: string) {
  const [c] = await db
    .insert(connectors)
    .values({ orgId, type: "google_workspace", displayName: "D", mode: "demo" })
    .returning();
  const [f] = await db
    .insert(findings)
    .values({
      orgId,
      connectorId: c?.id ?? "",
      connectorType: "google_workspace",
      fingerprint: "fp",
      ruleId: "public_link",
      category: "public_exposure",
      severity: "CRITICAL",
      severityRank: 4,
      title: "Public link on Payroll.xlsx",
      resourceId: "file1",
      resourceName: "Payroll.xlsx",
      resourceType: "file",
    })
    .returning();
  if (!f) throw new Error("seed failed");
  return f;
}
