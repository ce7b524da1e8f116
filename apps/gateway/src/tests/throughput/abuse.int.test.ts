import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { useTestGateway } from "../../testing";
import { errorCode, freshIp, times } from "../helpers";
import { credentialChecks } from "./helpers";

const gw = useTestGateway();

const madeUpKey = () => `svc_ak_${randomBytes(20).toString("hex")}`;
/** A /64 of its own, and addresses inside it. */
const fresh64 = () => {
  const net = `2001:db8:${randomBytes(2).toString("hex")}:${randomBytes(2).toString("hex")}`;
  return (host: number) => `${net}:${host.toString(16)}::${(host * 7).toString(16)}`;
};

describe("the limiter runs before credential lookups", () => {
  it("a flood of made-up API keys from one client costs at most the anonymous budget in lookups", async () => {
    const ip = freshIp();
    const before = await credentialChecks();
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      statuses.push((await gw.request("GET", "/api/usage", { ip, key: madeUpKey() })).status);
    }
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(401));
    expect(statuses.slice(20)).toEqual(Array(10).fill(429));
    expect((await credentialChecks()).lookup - before.lookup).toBe(20);
  });

  it("a valid key not yet cached is served from a client that spent its anonymous budget; a made-up one is not", async () => {
    const actor = await gw.createActor({ plan: "business" });
    const ip = freshIp();
    const spent = await times(20, () => gw.request("GET", "/api/usage", { ip }));
    expect(spent.map((r) => r.status)).toEqual(Array(20).fill(401));
    expect((await gw.request("GET", "/api/usage", { ip })).status).toBe(429);
    // This gateway has never seen the key: it is looked up, and counted as authenticated.
    const valid = await gw.request("GET", "/api/usage", { ip, key: actor.key });
    expect(valid.status).toBe(200);
    expect(valid.headers.get("ratelimit-policy")).toBe('"authenticated";q=60;w=60');
    // A made-up key still costs the anonymous budget, which is spent.
    const madeUp = await gw.request("GET", "/api/usage", { ip, key: madeUpKey() });
    expect(madeUp.status).toBe(429);
    expect(madeUp.headers.get("ratelimit-policy")).toBe('"anonymous";q=20;w=60');
  });

  it("once a client's made-up keys have spent the failure budget, even a valid new key waits (no lookup)", async () => {
    const actor = await gw.createActor({ plan: "business" });
    const ip = freshIp();
    for (let i = 0; i < 20; i++) await gw.request("GET", "/api/usage", { ip, key: madeUpKey() });
    const before = await credentialChecks();
    const res = await gw.request("GET", "/api/usage", { ip, key: actor.key });
    expect(res.status).toBe(429);
    expect(res.headers.get("ratelimit-policy")).toBe('"credential-failures";q=20;w=60');
    expect((await credentialChecks()).lookup - before.lookup).toBe(0);
    // Once resolved elsewhere, the key is cached and counted in its own bucket.
    expect((await gw.request("GET", "/api/usage", { key: actor.key })).status).toBe(200);
    expect((await gw.request("GET", "/api/usage", { ip, key: actor.key })).status).toBe(200);
  });
});

describe("IPv6 clients are counted per /64", () => {
  it("rotating addresses within a /64 does not reset the anonymous budget", async () => {
    const inNet = fresh64();
    const ok = await times(20, (i) => gw.request("GET", "/api/no-such-route", { ip: inNet(i + 1) }));
    expect(ok.map((r) => r.status)).toEqual(Array(20).fill(404));
    const next = await gw.request("GET", "/api/no-such-route", { ip: inNet(999) });
    expect(next.status).toBe(429);
    expect(errorCode(next)).toBe("rate_limited");
    expect((await gw.request("GET", "/api/no-such-route", { ip: fresh64()(1) })).status).toBe(404);
  });

  it("nor the sign-in budget", async () => {
    const inNet = fresh64();
    const attempt = (i: number) =>
      gw.request("POST", "/api/auth/sign-in", {
        ip: inNet(i + 1),
        body: { email: `nobody-${i}@example.test`, password: "wrong-password" },
      });
    const first = await times(10, attempt);
    expect(first.map((r) => r.status)).toEqual(Array(10).fill(401));
    expect((await attempt(50)).status).toBe(429);
  });
});

describe("tRPC batching", () => {
  // account.health takes no input: a batch of n calls is its name n times.
  const batch = (n: number) => `/trpc/${Array(n).fill("health.get").join(",")}?batch=1`;

  it("counts every call of a batch against the limit", async () => {
    const ip = freshIp();
    const res = await gw.request("GET", batch(5), { ip });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(5);
    expect(res.headers.get("ratelimit")).toMatch(/^"anonymous";r=15;t=\d+$/);
    await gw.request("GET", batch(10), { ip });
    const over = await gw.request("GET", batch(6), { ip });
    expect(over.status).toBe(429);
  });

  it("refuses a batch of more than 10 calls before running any", async () => {
    const ip = freshIp();
    const res = await gw.request("GET", batch(11), { ip });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: "invalid_input" });
    // Nothing was counted.
    expect((await gw.request("GET", "/api/no-such-route", { ip })).headers.get("ratelimit")).toMatch(
      /^"anonymous";r=19;/,
    );
  });

  // The handler reads the query with URLSearchParams and splits the percent-decoded path on
  // commas; the limiter must count what the handler will run, however it is spelled.
  it.each([
    ["batch=%31", `/trpc/${Array(5).fill("health.get").join(",")}?batch=%31`],
    ["%62atch=1", `/trpc/${Array(5).fill("health.get").join(",")}?%62atch=1`],
    ["encoded commas", `/trpc/${Array(5).fill("health.get").join("%2C")}?batch=1`],
    ["both encoded", `/trpc/${Array(5).fill("health.get").join("%2c")}?%62atch=%31`],
  ])("counts every call of a batch spelled with %s", async (_label, path) => {
    const ip = freshIp();
    const res = await gw.request("GET", path, { ip });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(5);
    expect(res.headers.get("ratelimit")).toMatch(/^"anonymous";r=15;t=\d+$/);
    // More than 10 calls is refused however the batch is spelled.
    const eleven = path.replace("health.get", Array(7).fill("health.get").join("%2C"));
    expect((await gw.request("GET", eleven, { ip })).status).toBe(400);
  });
});
