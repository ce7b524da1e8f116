// Words in a file name that suggest its content is sensitive. Matched on whole words (camelCase
// and digits split apart: "Payroll2024.xlsx" and "customerPasswords" match, "syntax" does not).

const SENSITIVE_WORDS: ReadonlySet<string> = new Set([
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
  "contract",
  "contracts",
  "confidential",
  "ssn",
  "invoice",
  "invoices",
  "tax",
  "passport",
  "bank",
  "iban",
  "nda",
  "medical",
]);

/** The first sensitive word in the name, or null. */
export function sensitiveTermIn(name: string): string | null {
  const words = name
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z]+/);
  for (const word of words) if (SENSITIVE_WORDS.has(word)) return word;
  return null;
}
