import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import { sql } from "drizzle-orm";
import pino from "pino";
import { beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "@posture/db";
import { LOG_REDACT } from "@posture/platform";
import { type TTestGateway, useTestGateway } from "../testing";
import { freshIp } from "./helpers";

// Everything the gateway logs, with production's redaction, kept for inspection.
const logLines: string[] = [];
const sink = new Writable({
  write(chunk: Buffer, _enc, done) {
    logLines.push(chunk.toString("utf8"));
    done();
  },
});
const log = pino({ level: "trace", redact: { paths: LOG_REDACT, censor: "[redacted]" } }, sink);

const gw = useTestGateway({ log, env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" } });
let actor: Awaited<ReturnType<TTestGateway["createActor"]>>;
beforeAll(async () => {
  actor = await gw.createActor({ plan: "business", role: "OWNER" });
});

const post = (path: string, body: unknown, idemKey: string) =>
  gw.request("POST", path, {
    cookie: actor.cookie,
    body,
    ip: freshIp(),
    headers: { "idempotency-key": idemKey },
  });

/** Every row of every table of the public schema, as text. */
async function dumpDatabase(): Promise<string> {
  const tables = await queryRows<{ name: string }>(
    gw.db.db,
    sql`select quote_ident(table_name) as name from information_schema.tables
        where table_schema = 'public' and table_type = 'BASE TABLE'`,
  );
  const parts: string[] = [];
  for (const { name } of tables) {
    const rows = await queryRows<{ row: string }>(
      gw.db.db,
      sql.raw(`select row_to_json(t)::text as row from ${name} t`),
    );
    parts.push(...rows.map((r) => `${name} ${r.row}`));
  }
  return parts.join("\n");
}

describe("secret-bearing creations", () => {
  it("replay the secret to the integrator, but keep no plaintext key or secret in the database or the logs", async () => {
    const keyIdem = `k-${randomBytes(6).toString("hex")}`;
    const createdKey = await post("/api/keys", { name: "ci deploy" }, keyIdem);
    expect(createdKey.status).toBe(201);
    const apiKey = (createdKey.body as { key: string }).key;
    expect(apiKey).toMatch(/^svc_ak_[0-9a-f]{40}$/);

    const hookIdem = `w-${randomBytes(6).toString("hex")}`;
    const createdHook = await post(
      "/api/webhooks",
      { url: "http://127.0.0.1:9/in", events: ["scan.completed"] },
      hookIdem,
    );
    expect(createdHook.status).toBe(201);
    const secret = (createdHook.body as { secret: string }).secret;
    expect(secret).toMatch(/^whsec_/);

    // A client that timed out retries with the same key: it gets the very same result, secret included.
    const keyReplay = await post("/api/keys", { name: "ci deploy" }, keyIdem);
    expect(keyReplay.headers.get("idempotent-replayed")).toBe("true");
    expect(keyReplay.body).toEqual(createdKey.body);
    const hookReplay = await post(
      "/api/webhooks",
      { url: "http://127.0.0.1:9/in", events: ["scan.completed"] },
      hookIdem,
    );
    expect(hookReplay.headers.get("idempotent-replayed")).toBe("true");
    expect(hookReplay.body).toEqual(createdHook.body);

    // The key works, so it really is the one that was stored (as a hash).
    expect((await gw.request("GET", "/api/usage", { key: apiKey, ip: freshIp() })).status).toBe(200);

    const dump = await dumpDatabase();
    expect(dump).toContain("idempotency_keys"); // the records are there…
    expect(dump).toContain(keyIdem);
    const needles = [apiKey, apiKey.slice("svc_ak_".length), secret, secret.slice("whsec_".length)];
    for (const needle of needles) expect(dump).not.toContain(needle); // …sealed
    const logs = logLines.join("");
    expect(logs).toContain("/api/keys");
    for (const needle of needles) expect(logs).not.toContain(needle);
  });

  it("refuses to replay a sealed record that was moved to another idempotency key", async () => {
    const a = `a-${randomBytes(6).toString("hex")}`;
    const b = `b-${randomBytes(6).toString("hex")}`;
    expect((await post("/api/keys", { name: "first" }, a)).status).toBe(201);
    expect((await post("/api/keys", { name: "second" }, b)).status).toBe(201);
    // A database-level attacker copies a's sealed result onto b: it does not open there.
    await gw.db.db.execute(
      sql`update idempotency_keys set response_body = (select response_body from idempotency_keys where key = ${a})
          where key = ${b}`,
    );
    const replay = await post("/api/keys", { name: "second" }, b);
    expect(replay.status).toBe(409);
    expect(replay.body).toMatchObject({ error: "conflict" });
  });
});
