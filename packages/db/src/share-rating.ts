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

/**
 * Words of a sensitivity label's display name that make a file highly sensitive, matched like the
 * name's words (a sublabel such as "Confidential\All Employees" or "Highly Confidential - HR"
 * carries its parent's word). Both sources' usual taxonomies: Microsoft Purview's default labels
 * (Personal, Public, General, Confidential, Highly Confidential) and the choices of a Google Drive
 * badged label (Google's own example: Public, Confidential, Top Secret; "Internal" is common).
 * Confidential and above are highly sensitive; Personal, Public, General and Internal say nothing
 * the name does not. A negated word ("Non-Confidential", "Not Restricted") does not count.
 */
export const SENSITIVE_LABEL_WORDS = ["confidential", "restricted", "secret", "sensitive"] as const;

const LABEL_WORDS: ReadonlySet<string> = new Set(SENSITIVE_LABEL_WORDS);
const NEGATIONS: ReadonlySet<string> = new Set(["non", "not", "un", "no"]);

/** The sensitivity a source's label states: `high` for Confidential and above, else `low`. */
export function labelSensitivity(label: string | null | undefined): TSensitivity {
  if (!label) return "low";
  const words = wordsOf(label);
  for (let i = 0; i < words.length; i++) {
    if (LABEL_WORDS.has(words[i] ?? "") && !NEGATIONS.has(words[i - 1] ?? "")) return "high";
  }
  return "low";
}

/**
 * A file's sensitivity, one function for the rule engine and the resource store: the more
 * sensitive of what its labels state and what its name suggests. A label raises a file, never
 * lowers it: default label policies stamp "General" on everything, and a payroll sheet labelled
 * General is exactly the mistake a reviewer must see.
 */
export function fileSensitivity(name: string, labels: readonly string[] = []): TSensitivity {
  if (labels.some((l) => labelSensitivity(l) === "high")) return "high";
  return nameSensitivity(name);
}

/** One level more severe, never above CRITICAL. */
export function raiseSeverity(severity: TSeverity): TSeverity {
  return severity === "LOW" ? "MEDIUM" : severity === "MEDIUM" ? "HIGH" : "CRITICAL";
}

/**
 * The share scale. A public link is HIGH, CRITICAL when anyone can change the file (a public
 * commenter counts) or the file is highly sensitive (by its label or its name). An outside grant
 * (a person or a domain) is MEDIUM, HIGH when it can edit, one level more severe on a highly
 * sensitive file (never above CRITICAL), and then one level lower when its destination is
 * trusted. A file's `external_share` finding is its worst grant; a sharing item rates the file's
 * outside grants of one audience together, on the same scale.
 */
export function publicLinkSeverity(role: string, sensitivity: TSensitivity): TSeverity {
  const editable = EDITING_ROLES.has(role) || role === "commenter";
  return editable || sensitivity === "high" ? "CRITICAL" : "HIGH";
}

export function outsideGrantSeverity(
  role: string,
  trusted: boolean,
  sensitivity: TSensitivity = "low",
): TSeverity {
  const base: TSeverity = EDITING_ROLES.has(role) ? "HIGH" : "MEDIUM";
  const raised = sensitivity === "high" ? raiseSeverity(base) : base;
  return trusted ? lowerSeverity(raised) : raised;
}

/** A sharing item before trusted domains (the store lowers it when every destination is trusted). */
export function outsideItemSeverity(role: string, sensitivity: TSensitivity): TSeverity {
  return outsideGrantSeverity(role, false, sensitivity);
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

/** `outsideGrantSeverity(role, trusted, high ? "high" : "low")` as a rank. */
export function outsideGrantRankSql(role: SQL, trusted: SQL, high: SQL = sql`false`): SQL {
  const editing = [...EDITING_ROLES].map(literal).join(", ");
  const [edit = "writer"] = [...EDITING_ROLES];
  const rank = (r: string, t: boolean, h: boolean) =>
    sql.raw(String(SEVERITY_RANK[outsideGrantSeverity(r, t, h ? "high" : "low")]));
  const byRole = (t: boolean, h: boolean) =>
    sql`(CASE WHEN ${role} IN (${sql.raw(editing)}) THEN ${rank(edit, t, h)} ELSE ${rank("reader", t, h)} END)`;
  const byTrust = (h: boolean) =>
    sql`(CASE WHEN ${trusted} THEN ${byRole(true, h)} ELSE ${byRole(false, h)} END)`;
  return sql`(CASE WHEN ${high} THEN ${byTrust(true)} ELSE ${byTrust(false)} END)`;
}

/** `labelSensitivity(label) === "high"` as a boolean over a text expression (word for word). */
export function labelSensitiveSql(label: SQL): SQL {
  const words = SENSITIVE_LABEL_WORDS.map(literal).join(", ");
  const negations = [...NEGATIONS].map(literal).join(", ");
  // A cheap pattern first: most labels (General, Internal, Public) never reach the word split.
  const any = literal(SENSITIVE_LABEL_WORDS.join("|"));
  return sql`(${label} ~* ${sql.raw(any)} AND EXISTS (SELECT 1 FROM (
      SELECT w, lag(w) OVER (ORDER BY i) AS prev
      FROM unnest(regexp_split_to_array(lower(regexp_replace(${label}, '([a-z])([A-Z])', '\\1 \\2', 'g')), '[^a-z]+'))
        WITH ORDINALITY AS t(w, i)) x
    WHERE x.w IN (${sql.raw(words)}) AND coalesce(x.prev, '') NOT IN (${sql.raw(negations)})))`;
}
