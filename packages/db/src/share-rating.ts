import { sql, type SQL } from "drizzle-orm";
import type { TSensitivity } from "./schema/workspace-files";
import { lowerSeverity, SEVERITIES, SEVERITY_RANK, type TSeverity } from "./severity";

// How a share is rated, written once: the rule engine (findings), the resource store (sharing
// items) and the SQL that re-rates both after a trusted-domain change all read this file. The SQL
// is generated from the TypeScript below, and a test checks both give the same rating for every
// input (`share-rating.int.test.ts`).

/** The roles that can change a file's content. */
export const EDITING_ROLES: ReadonlySet<string> = new Set(["writer", "organizer", "owner"]);

/**
 * Words in a file name that suggest its content is sensitive, matched on whole words (camelCase
 * and digits split apart: "Payroll2024.xlsx" and "customerPasswords" match, "syntax" does not).
 * `high` makes a file highly sensitive: a public link to it is CRITICAL and an outside share of
 * it one level more severe; `medium` only ranks it higher.
 */
export const SENSITIVE_WORDS = {
  high: [
    "payroll",
    "salary",
    "salaries",
    "password",
    "passwords",
    "passwd",
    "credential",
    "credentials",
    "secret",
    "secrets",
    "ssn",
    "passport",
    "bank",
    "iban",
    "medical",
    "health",
    "tax",
    "private",
    "contract",
    "contracts",
    "confidential",
    "nda",
    "invoice",
    "invoices",
  ],
  medium: [
    "customer",
    "customers",
    "finance",
    "financial",
    "budget",
    "forecast",
    "legal",
    "hr",
    "roadmap",
    "pricing",
    "board",
    "internal",
  ],
} as const;

const HIGH_WORDS: ReadonlySet<string> = new Set(SENSITIVE_WORDS.high);
const MEDIUM_WORDS: ReadonlySet<string> = new Set(SENSITIVE_WORDS.medium);

const wordsOf = (name: string) =>
  name
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z]+/);

/** The first word of the name that makes a file highly sensitive, or null. */
export function sensitiveTermIn(name: string): string | null {
  for (const word of wordsOf(name)) if (HIGH_WORDS.has(word)) return word;
  return null;
}

/** The sensitivity the words of a name suggest. */
export function nameSensitivity(name: string): TSensitivity {
  let medium = false;
  for (const word of wordsOf(name)) {
    if (HIGH_WORDS.has(word)) return "high";
    if (MEDIUM_WORDS.has(word)) medium = true;
  }
  return medium ? "medium" : "low";
}

/** One level more severe, never above CRITICAL. */
export function raiseSeverity(severity: TSeverity): TSeverity {
  return severity === "LOW" ? "MEDIUM" : severity === "MEDIUM" ? "HIGH" : "CRITICAL";
}

/**
 * The share scale. A public link is HIGH, CRITICAL when anyone can change the file (a public
 * commenter counts) or the file is highly sensitive. An outside grant (a person or a domain) is
 * MEDIUM, HIGH when it can edit; one level lower when its destination is trusted. A sharing item
 * rates the file's outside grants together and is raised one level for a highly sensitive file.
 */
export function publicLinkSeverity(role: string, sensitivity: TSensitivity): TSeverity {
  const editable = EDITING_ROLES.has(role) || role === "commenter";
  return editable || sensitivity === "high" ? "CRITICAL" : "HIGH";
}

export function outsideGrantSeverity(role: string, trusted: boolean): TSeverity {
  const base: TSeverity = EDITING_ROLES.has(role) ? "HIGH" : "MEDIUM";
  return trusted ? lowerSeverity(base) : base;
}

export function outsideItemSeverity(role: string, sensitivity: TSensitivity): TSeverity {
  const base = outsideGrantSeverity(role, false);
  return sensitivity === "high" ? raiseSeverity(base) : base;
}

// ---- the same rules in SQL, generated from the functions above --------------------------------

const literal = (v: string | number) => (typeof v === "number" ? String(v) : `'${v.replace(/'/g, "''")}'`);

/** `expr` (a severity rank) as its severity name. */
export function severityOfRankSql(rank: SQL): SQL {
  const arms = SEVERITIES.map((s) => `WHEN ${SEVERITY_RANK[s]} THEN ${literal(s)}`).join(" ");
  return sql`(CASE ${rank} ${sql.raw(arms)} END)`;
}

/** `expr` (a severity name) as its rank. */
export function rankOfSeveritySql(severity: SQL): SQL {
  const arms = SEVERITIES.map((s) => `WHEN ${literal(s)} THEN ${SEVERITY_RANK[s]}`).join(" ");
  return sql`(CASE ${severity} ${sql.raw(arms)} END)`;
}

/** `lowerSeverity` over a rank. */
export function lowerRankSql(rank: SQL): SQL {
  const arms = SEVERITIES.map((s) => `WHEN ${SEVERITY_RANK[s]} THEN ${SEVERITY_RANK[lowerSeverity(s)]}`).join(
    " ",
  );
  return sql`(CASE ${rank} ${sql.raw(arms)} END)`;
}

/** `outsideGrantSeverity(role, trusted)` as a rank. */
export function outsideGrantRankSql(role: SQL, trusted: SQL): SQL {
  const editing = [...EDITING_ROLES].map(literal).join(", ");
  const rank = (r: string, t: boolean) => SEVERITY_RANK[outsideGrantSeverity(r, t)];
  const [edit] = [...EDITING_ROLES];
  const reader = "reader";
  return sql`(CASE WHEN ${trusted}
      THEN (CASE WHEN ${role} IN (${sql.raw(editing)}) THEN ${sql.raw(String(rank(edit ?? "writer", true)))} ELSE ${sql.raw(String(rank(reader, true)))} END)
      ELSE (CASE WHEN ${role} IN (${sql.raw(editing)}) THEN ${sql.raw(String(rank(edit ?? "writer", false)))} ELSE ${sql.raw(String(rank(reader, false)))} END) END)`;
}
