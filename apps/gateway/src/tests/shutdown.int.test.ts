import autocannon from "autocannon";
import { describe, expect, it } from "vitest";
import { randomClientIp } from "../testing";
import { fixture, startGatewayProcess, useShutdownDb } from "./shutdown-testing";

// The real entry point (the bundle of main.ts) in its own process: SIGTERM stops accepting,
// lets the in-flight request finish, closes pools and exits 0. (A sync longer than the grace, and
// idle keep-alive connections: shutdown-handoff.int.test.ts, so that the two files run side by
// side.)
useShutdownDb();

describe("SIGTERM", () => {
  it("finishes the request in flight, then exits 0 and refuses new connections", async () => {
    const f = await fixture("Shutdown");
    // A grace the 10,000-file scan fits in: the sync is answered with its result.
    const { url, proc } = await startGatewayProcess({ SHUTDOWN_GRACE_MS: "15000" });
    expect((await fetch(`${url}/api/usage`, { headers: { authorization: `Bearer ${f.key}` } })).status).toBe(
      200,
    );

    // A scan of 10,000 files takes a few seconds: SIGTERM arrives while it runs.
    const inFlight = fetch(`${url}/api/connectors/${f.connectorId}/sync`, {
      method: "POST",
      headers: { cookie: f.cookie },
    });
    await new Promise((r) => setTimeout(r, 300));
    const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)));
    proc.kill("SIGTERM");

    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "COMPLETE" });
    expect(await exited).toBe(0);
    await expect(fetch(`${url}/api/health`)).rejects.toThrow();
  }, 60_000);
});

describe("SIGTERM under keep-alive load", () => {
  it("loses no request, finishes the scan in flight and exits 0 within 30 s", async () => {
    const f = await fixture("Loaded");
    // Distinct client addresses (each its own /64, the anonymous limit's unit for IPv6) through a trusted loopback proxy: the per-IP limit is counted
    // on every request without a 60-per-minute budget ending the run.
    const { url, proc } = await startGatewayProcess({ TRUST_PROXY: "loopback" });
    const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)));

    const sync = fetch(`${url}/api/connectors/${f.connectorId}/sync`, {
      method: "POST",
      headers: { cookie: f.cookie },
    });
    const statuses = new Map<number, number>();
    const errors = new Map<string, number>();
    let finished: () => void = () => {};
    const done = new Promise<void>((resolve) => (finished = resolve));
    // The callback form returns the instance (events, stop); the callback marks the end.
    const load = autocannon(
      {
        url,
        connections: 8,
        duration: 40,
        headers: { authorization: `Bearer ${f.key}` },
        requests: [
          {
            method: "GET",
            path: "/api/usage",
            setupRequest: (req) => ({
              ...req,
              headers: { ...req.headers, "x-forwarded-for": randomClientIp() },
            }),
          },
        ],
      },
      () => finished(),
    );
    load.on("response", (_client: unknown, status: number) =>
      statuses.set(status, (statuses.get(status) ?? 0) + 1),
    );
    load.on("reqError", (err: Error & { code?: string }) => {
      const code = err.code ?? err.message;
      errors.set(code, (errors.get(code) ?? 0) + 1);
    });

    // Load and the scan both under way, then the orchestrator's stop signal.
    await new Promise((r) => setTimeout(r, 2_000));
    const answeredBefore = [...statuses.values()].reduce((a, b) => a + b, 0);
    const signalledAt = Date.now();
    proc.kill("SIGTERM");

    const res = await sync;
    const code = await exited;
    const exitMs = Date.now() - signalledAt;
    load.stop();
    await done;

    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "COMPLETE" });
    expect(code).toBe(0);
    expect(exitMs).toBeLessThan(30_000);
    // Every request the gateway accepted was answered, and answered 200: none reset, none 5xx.
    expect(answeredBefore).toBeGreaterThan(10);
    expect([...statuses.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(answeredBefore);
    expect([...statuses.keys()]).toEqual([200]);
    // After the listener closed, the load generator's reconnects are refused: those requests
    // never reached the gateway (a load balancer sends them elsewhere). Nothing else may fail.
    const lost = [...errors.entries()].filter(([c]) => c !== "ECONNREFUSED");
    expect(lost).toEqual([]);
  }, 60_000);
});
