import { createServer } from "node:http";
import { verifyWebhook, WebhookVerificationError } from "@posture/sdk";

// The subscription's secret, shown once when it was created. During a rotation pass both:
// `secret: [oldSecret, newSecret]`.
const secret = process.env.WEBHOOK_SECRET ?? "";

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    try {
      // Verify the raw bytes, before parsing or trusting anything in them.
      const event = verifyWebhook({ secret, body: Buffer.concat(chunks), headers: req.headers });
      // Deliveries are at least once: a real receiver dedupes on `event.id`.
      console.log(`verified ${event.event} ${event.id}`, JSON.stringify(event.data));
      res.writeHead(204).end();
    } catch (err) {
      if (!(err instanceof WebhookVerificationError)) throw err;
      console.log(`refused a delivery: ${err.reason}`);
      res.writeHead(400).end();
    }
  });
});

server.listen(Number(process.env.PORT ?? 4000), "127.0.0.1", () => {
  const address = server.address();
  console.log(`listening on ${typeof address === "object" && address ? address.port : address}`);
});
