import { createClient } from "@posture/sdk";

const api = createClient({
  baseUrl: process.env.SERVICE_URL ?? "http://localhost:3000",
  apiKey: process.env.SERVICE_API_KEY ?? "",
  // Paging can spend the key's minute budget: the client then waits for the window to reset
  // (up to a minute) and says so here rather than seeming to hang.
  onRetry: (w) =>
    console.error(`${w.status} on ${w.method} ${w.url}: retrying in ${Math.ceil(w.delayMs / 1000)} s`),
});

// Every open finding, 50 a page: paginate follows `nextOffset` until the last page.
const bySeverity: Record<string, number> = {};
for await (const finding of api.paginate("/findings", { params: { query: { status: "OPEN", limit: 50 } } })) {
  bySeverity[finding.severity] = (bySeverity[finding.severity] ?? 0) + 1;
}
console.log("open findings by severity:", JSON.stringify(bySeverity));

// The timeline is cursor-paged (`nextCursor`), the audit log page-numbered (`totalPages`):
// the same call walks both.
let recent = 0;
for await (const item of api.paginate("/timeline", { params: { query: { limit: 100 } } })) {
  if (item.kind === "finding") recent++;
}
console.log("finding events on the timeline:", recent);
