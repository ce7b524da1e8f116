import { readFileSync } from "node:fs";
import express from "express";

// The baseline: a bare Express 5 route answering the same JSON body from memory.
const body: unknown = JSON.parse(readFileSync(process.env.BENCH_BODY_FILE ?? "", "utf8"));
const path = process.env.BENCH_PATH ?? "/";

const app = express();
app.get(path, (_req, res) => {
  res.json(body);
});
const server = app.listen(Number(process.env.PORT), "127.0.0.1");
process.on("SIGTERM", () => server.close(() => process.exit(0)));
