import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "./client";
import {
  labelSensitiveSql,
  labelSensitivity,
  lowerRankSql,
  outsideGrantRankSql,
  outsideGrantSeverity,
  rankOfSeveritySql,
  severityOfRankSql,
} from "./share-rating";
import { lowerSeverity, SEVERITIES, SEVERITY_RANK } from "./severity";
import { createTestDb, type TestDb } from "./testing";

// The re-rating SQL and the TypeScript scale give the same rating for every input.

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(async () => {
  await db?.drop();
});

const ROLES = ["reader", "commenter", "writer", "organizer", "owner", "unknown"];

describe("the share scale in SQL", () => {
  it("rates every outside grant (role × trusted × sensitivity) as outsideGrantSeverity does", async () => {
    for (const role of ROLES)
      for (const trusted of [true, false])
        for (const high of [true, false]) {
          const [row] = await queryRows<{ rank: number }>(
            db.db,
            sql`SELECT ${outsideGrantRankSql(sql`${role}::text`, sql`${trusted}::boolean`, sql`${high}::boolean`)} AS rank`,
          );
          expect({ role, trusted, high, rank: Number(row?.rank) }).toEqual({
            role,
            trusted,
            high,
            rank: SEVERITY_RANK[outsideGrantSeverity(role, trusted, high ? "high" : "low")],
          });
        }
  });

  it("reads a label's sensitivity as labelSensitivity does", async () => {
    const labels = [
      "Highly Confidential",
      "Confidential",
      "Confidential\\All Employees",
      "HighlyConfidential",
      "Top Secret",
      "restricted",
      "Sensitive - HR",
      "General",
      "Internal",
      "Public",
      "Personal",
      "Non-Confidential",
      "not restricted",
      "Unrestricted",
      "Confidentiality notice",
      "",
    ];
    for (const label of labels) {
      const [row] = await queryRows<{ high: boolean }>(
        db.db,
        sql`SELECT ${labelSensitiveSql(sql`${label}::text`)} AS high`,
      );
      expect({ label, high: row?.high }).toEqual({ label, high: labelSensitivity(label) === "high" });
    }
  });

  it("maps severities and ranks, and lowers a rank, as the TypeScript does", async () => {
    for (const s of SEVERITIES) {
      const [row] = await queryRows<{ rank: number; name: string; lowered: number }>(
        db.db,
        sql`SELECT ${rankOfSeveritySql(sql`${s}::text`)} AS rank,
                   ${severityOfRankSql(sql`${SEVERITY_RANK[s]}::int`)} AS name,
                   ${lowerRankSql(sql`${SEVERITY_RANK[s]}::int`)} AS lowered`,
      );
      expect({ rank: Number(row?.rank), name: row?.name, lowered: Number(row?.lowered) }).toEqual({
        rank: SEVERITY_RANK[s],
        name: s,
        lowered: SEVERITY_RANK[lowerSeverity(s)],
      });
    }
  });
});
