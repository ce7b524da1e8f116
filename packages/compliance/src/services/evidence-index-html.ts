import type { TFrameworkResult } from "../engine/evaluate";

export type TManifestFile = { path: string; size: number; sha256: string };

const esc = (s: unknown) =>
  String(s ?? "").replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );

const STATUS_CLASS = { SATISFIED: "ok", PARTIAL: "partial", GAP: "gap" } as const;

/**
 * The page an auditor opens first: what the package covers, every control with its status, reason
 * and evidence files (relative links inside the ZIP), the audit-chain check and the file list with
 * hashes. Self-contained: inline CSS, no script, nothing fetched.
 */
export function renderIndexHtml(o: {
  orgName: string;
  result: TFrameworkResult;
  period: { days: number; from: string; to: string };
  generatedAt: string;
  controlFiles: Record<string, string[]>;
  auditCheck: { verified: boolean; entries: number; brokenAtSeq: number | null };
  files: TManifestFile[];
}): string {
  const r = o.result;
  const rows = r.controls
    .map(
      (c) => `<tr><td class="id">${esc(c.id)}</td><td>${esc(c.title)}</td>
<td><span class="badge ${STATUS_CLASS[c.status]}">${c.status}</span></td><td>${esc(c.reason)}</td>
<td>${(o.controlFiles[c.id] ?? []).map((f) => `<a href="${esc(f)}">${esc(f.split("/").pop())}</a>`).join("<br>")}</td></tr>`,
    )
    .join("\n");
  const files = o.files
    .map(
      (f) =>
        `<tr><td><a href="${esc(f.path)}">${esc(f.path)}</a></td><td class="num">${f.size.toLocaleString("en-US")}</td><td class="hash">${f.sha256}</td></tr>`,
    )
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(r.name)} evidence package: ${esc(o.orgName)}</title>
<style>
body{font-family:-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;color:#1a1a1a;margin:0;background:#f6f7f9}
header{background:#1f4e79;color:#fff;padding:28px 40px}header h1{margin:0 0 6px;font-size:24px}header p{margin:2px 0;opacity:.9}
main{padding:24px 40px;max-width:1200px}section{background:#fff;border:1px solid #dde2e8;border-radius:6px;padding:18px 22px;margin-bottom:20px}
h2{font-size:17px;margin:0 0 12px;color:#1f4e79}.tiles{display:flex;gap:14px}.tile{flex:1;background:#eef3f8;border-radius:6px;padding:12px 16px}
.tile b{display:block;font-size:26px}.tile span{color:#5f6b7a;font-size:13px}table{border-collapse:collapse;width:100%;font-size:13px}
th{background:#1f4e79;color:#fff;text-align:left;padding:7px 8px}td{border-bottom:1px solid #e3e7ec;padding:7px 8px;vertical-align:top}
tr:nth-child(even) td{background:#f8f9fb}.id{white-space:nowrap;font-weight:600}.num{text-align:right}.hash{font-family:monospace;font-size:11px;word-break:break-all}
.badge{display:inline-block;padding:2px 8px;border-radius:10px;font-size:11px;font-weight:700;color:#fff}.ok{background:#2b8a3e}.partial{background:#b08800}.gap{background:#b42318}
.check{font-weight:600}.check.ok{color:#2b8a3e;background:none}.check.gap{color:#b42318;background:none}a{color:#1f4e79}
</style></head><body>
<header><h1>${esc(r.name)} evidence package</h1>
<p>${esc(o.orgName)} &middot; ${esc(r.version)}</p>
<p>Period: last ${o.period.days} days (${esc(o.period.from.slice(0, 10))} to ${esc(o.period.to.slice(0, 10))}) &middot; generated ${esc(o.generatedAt)}</p></header>
<main>
<section><h2>Summary</h2><div class="tiles">
<div class="tile"><b>${r.controls.length}</b><span>controls</span></div>
<div class="tile"><b style="color:#2b8a3e">${r.satisfied}</b><span>satisfied</span></div>
<div class="tile"><b style="color:#b08800">${r.partial}</b><span>partial</span></div>
<div class="tile"><b style="color:#b42318">${r.gap}</b><span>gaps</span></div></div>
<p>A control is <b>satisfied</b> when all of its evidence passes, <b>partial</b> when some is incomplete or missing, a <b>gap</b> when any evidence fails or none could be collected. The gap report (<a href="reports/gap-report.pdf">reports/gap-report.pdf</a>) ranks what to fix first.</p></section>
<section><h2>Audit trail integrity</h2>
<p class="check ${o.auditCheck.verified ? "ok" : "gap"}">${
    o.auditCheck.verified
      ? `Hash chain verified: ${o.auditCheck.entries} entries, every link recomputed.`
      : `Hash chain BROKEN at entry ${o.auditCheck.brokenAtSeq}.`
  }</p><p>Extract: <a href="evidence/audit-log.csv">evidence/audit-log.csv</a>; check: <a href="evidence/audit-log-verification.json">evidence/audit-log-verification.json</a>.</p></section>
<section><h2>Controls</h2><table><thead><tr><th>Control</th><th>Title</th><th>Status</th><th>Reason</th><th>Evidence</th></tr></thead><tbody>
${rows}
</tbody></table></section>
<section><h2>Files</h2><p>Sizes in bytes; SHA-256 of each file as listed in <a href="manifest.json">manifest.json</a>.</p>
<table><thead><tr><th>File</th><th>Size</th><th>SHA-256</th></tr></thead><tbody>
${files}
</tbody></table></section>
</main></body></html>
`;
}
