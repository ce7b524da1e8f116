import type { OpenAPIObject } from "trpc-to-openapi";

const escape = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );

type TOp = { summary?: string; description?: string; tags?: string[] };

/** A self-contained reference page (no CDN: it must render on an air-gapped network). */
export function renderDocsPage(doc: OpenAPIObject): string {
  const rows: string[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item as Record<string, TOp>)) {
      rows.push(
        `<section><h3><span class="m ${method}">${method.toUpperCase()}</span> /api${escape(path)}</h3>` +
          `<p>${escape(op.summary ?? "")}</p><pre>${escape(op.description ?? "")}</pre></section>`,
      );
    }
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(doc.info.title)}</title>
<style>body{font:15px system-ui,sans-serif;max-width:960px;margin:2rem auto;padding:0 1rem;color:#1b1f24}
section{border-top:1px solid #ddd;padding:.5rem 0}.m{display:inline-block;min-width:4.5rem;font-family:monospace}
.get{color:#0a7}.post{color:#07c}.delete{color:#c22}.patch,.put{color:#a60}pre{white-space:pre-wrap;color:#555}</style>
</head><body><h1>${escape(doc.info.title)}</h1><p>${escape(doc.info.description ?? "")}</p>
<p>Machine-readable: <a href="/api/openapi.json">/api/openapi.json</a></p>${rows.join("\n")}</body></html>`;
}
