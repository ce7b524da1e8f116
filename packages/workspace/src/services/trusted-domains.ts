import { and, asc, eq } from "drizzle-orm";
import { trustedDomains, type Db } from "@posture/db";
import { AppError, audit, firstOr404, iso, type TScope } from "@posture/platform";
import { rerateDomain } from "./rerate";

const toRow = (t: typeof trustedDomains.$inferSelect) => ({
  id: t.id,
  domain: t.domain,
  note: t.note,
  createdAt: iso(t.createdAt),
});

export async function listTrustedDomains(db: Db, { orgId }: { orgId: string }) {
  const rows = await db
    .select()
    .from(trustedDomains)
    .where(eq(trustedDomains.orgId, orgId))
    .orderBy(asc(trustedDomains.domain));
  return { rows: rows.map(toRow) };
}

/** Adds a domain; its shares and open findings are re-rated in the same transaction. 409 if present. */
export async function addTrustedDomain(db: Db, scope: TScope & { domain: string; note: string }) {
  const domain = scope.domain.toLowerCase();
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(trustedDomains)
      .values({ orgId: scope.orgId, domain, note: scope.note })
      .onConflictDoNothing()
      .returning();
    if (!row) throw new AppError("conflict", `${domain} is already a trusted domain`);
    const rerated = await rerateDomain(tx as unknown as Db, { orgId: scope.orgId, domain });
    await audit(tx as unknown as Db, scope, {
      action: "TRUSTED_DOMAIN_ADDED",
      target: domain,
      metadata: {
        id: row.id,
        note: scope.note,
        reratedItems: rerated.items,
        reratedFindings: rerated.findings,
      },
    });
    return { ...toRow(row), rerated };
  });
}

export async function removeTrustedDomain(db: Db, scope: TScope & { id: string }) {
  return db.transaction(async (tx) => {
    const row = firstOr404(
      await tx
        .delete(trustedDomains)
        .where(and(eq(trustedDomains.orgId, scope.orgId), eq(trustedDomains.id, scope.id)))
        .returning(),
      "Trusted domain",
    );
    const rerated = await rerateDomain(tx as unknown as Db, { orgId: scope.orgId, domain: row.domain });
    await audit(tx as unknown as Db, scope, {
      action: "TRUSTED_DOMAIN_REMOVED",
      target: row.domain,
      metadata: { id: row.id, reratedItems: rerated.items, reratedFindings: rerated.findings },
    });
    return { removed: true as const, rerated };
  });
}
