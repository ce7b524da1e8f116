import { createWriteStream } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createClient } from "@posture/sdk";

const api = createClient({
  baseUrl: process.env.SERVICE_URL ?? "http://localhost:3000",
  apiKey: process.env.SERVICE_API_KEY ?? "",
});

// Open an incident (this also sends `incident.created` to the webhook subscriptions)...
const incident = await api.post("/incidents", {
  body: { title: "Payroll sheet shared publicly", priority: "P2", findingIds: [] },
});

// ...and save its PDF report. The body arrives as a web ReadableStream and goes to disk as it
// comes: nothing is held in memory, whatever the size.
const file = await api.download("/incidents/{id}/export", { params: { path: { id: incident.id } } });
const name = file.filename ?? `incident-${incident.id}.pdf`;
await pipeline(Readable.fromWeb(file.stream), createWriteStream(name));
console.log(`saved ${name} (${file.contentType})`);
