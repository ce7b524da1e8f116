/**
 * One RFC 4180 field. A value a spreadsheet would read as a formula (starting with = + - @, a tab
 * or a carriage return) is prefixed with a single quote, as OWASP's CSV-injection advice has it:
 * what goes into these files comes from monitored tenants, that is from anyone who can name a file.
 */
export function csvField(v: unknown): string {
  if (v === null || v === undefined) return "";
  let s = v instanceof Date ? v.toISOString() : String(v);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One CSV line of fields, CRLF-terminated. */
export const csvLine = (values: readonly unknown[]) => `${values.map(csvField).join(",")}\r\n`;
