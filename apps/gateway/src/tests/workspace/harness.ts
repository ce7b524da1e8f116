import { expect } from "vitest";
import type { TPlanId, TRole } from "@posture/db";
import type { TTestGateway, TTestResponse } from "../../testing";
import { freshIp } from "../helpers";

/** Requests from a fresh client address each: these suites make more than a minute's allowance. */
export function client(gw: TTestGateway, cookie: string) {
  return {
    get: (path: string) => gw.request("GET", path, { cookie, ip: freshIp() }),
    post: (path: string, body: unknown) => gw.request("POST", path, { cookie, body, ip: freshIp() }),
    del: (path: string) => gw.request("DELETE", path, { cookie, ip: freshIp() }),
  };
}

/** An organization with a scanned demo workspace; returns its owner's client and connector id. */
export async function scannedOrg(
  gw: TTestGateway,
  o: { plan?: TPlanId; role?: TRole; fileCount?: number } = {},
) {
  const actor = await gw.createActor({ plan: o.plan ?? "business", role: o.role ?? "OWNER" });
  const c = client(gw, actor.cookie);
  const created = await c.post("/api/connectors", {
    type: "google_workspace",
    displayName: "Demo Drive",
    mode: "demo",
    config: { fileCount: o.fileCount ?? 400 },
  });
  expect(created.status).toBe(201);
  const connectorId = (created.body as { id: string }).id;
  const scan = await c.post(`/api/connectors/${connectorId}/sync`, undefined);
  expect(scan.status).toBe(200);
  expect((scan.body as { status: string }).status).toBe("COMPLETE");
  return { ...actor, c, connectorId };
}

export const body = <T>(res: TTestResponse): T => res.body as T;
export const code = (res: TTestResponse) => (res.body as { error?: string } | undefined)?.error;
