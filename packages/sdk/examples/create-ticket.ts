import { ApiError, createClient } from "@posture/sdk";

const api = createClient({
  baseUrl: process.env.SERVICE_URL ?? "http://localhost:3000",
  apiKey: process.env.SERVICE_API_KEY ?? "",
});

// The list is most severe first: the first open CRITICAL finding.
const { findings } = await api.get("/findings", {
  params: { query: { status: "OPEN", severity: "CRITICAL", limit: 1 } },
});
const finding = findings[0];
if (!finding) {
  console.log("no open critical finding");
} else {
  try {
    // Sent with an Idempotency-Key, so a retried request cannot open a second issue.
    const { ticket } = await api.post("/findings/{id}/ticket", { params: { path: { id: finding.id } } });
    console.log(`opened ${ticket.provider} issue ${ticket.externalId}: ${ticket.url}`);
  } catch (err) {
    // Errors carry the contract's code: branch on it, never on the message.
    if (err instanceof ApiError && err.code === "ticket_exists") {
      console.log(`${finding.id} already has a ticket`);
    } else if (err instanceof ApiError && err.code === "integration_not_configured") {
      console.log("connect an issue tracker first (Settings → Integrations)");
    } else {
      throw err;
    }
  }
}
