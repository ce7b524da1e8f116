import { beforeAll, describe, expect, it } from "vitest";
import { type TTestGateway, useTestGateway, type TTestResponse } from "../testing";
import { errorCode, freshIp } from "./helpers";

const FOREIGN = "https://evil.example";
const ALLOWED = "https://app.example.test";

const gw = useTestGateway({ env: { ALLOWED_ORIGINS: ALLOWED } });
let actor: Awaited<ReturnType<TTestGateway["createActor"]>>;
beforeAll(async () => {
  actor = await gw.createActor({ plan: "business", role: "OWNER" });
});

// Every request from its own address: this file is about CSRF, not rate limits.
const post = (o: { headers?: Record<string, string>; cookie?: string; key?: string }) =>
  gw.request("POST", "/api/keys", { ...o, ip: freshIp(), body: { name: "csrf probe" } });
const del = (o: { headers?: Record<string, string>; cookie?: string; key?: string }) =>
  gw.request("DELETE", "/api/keys/key_doesnotexist", { ...o, ip: freshIp() });

function expectRejected(res: TTestResponse) {
  expect(res.status).toBe(403);
  expect(errorCode(res)).toBe("csrf_rejected");
}

// Passing the guard means the request reached routing: whatever it answers, it is not a CSRF 403.
function expectPassed(res: TTestResponse) {
  expect(errorCode(res)).not.toBe("csrf_rejected");
  expect(res.status).not.toBe(403);
}

describe("CSRF guard on cookie-authenticated writes", () => {
  it("refuses a POST and a DELETE from a foreign Origin", async () => {
    expectRejected(await post({ cookie: actor.cookie, headers: { origin: FOREIGN } }));
    expectRejected(await del({ cookie: actor.cookie, headers: { origin: FOREIGN } }));
  });

  it("refuses Sec-Fetch-Site: cross-site (and same-site) when there is no Origin", async () => {
    expectRejected(await post({ cookie: actor.cookie, headers: { "sec-fetch-site": "cross-site" } }));
    expectRejected(await del({ cookie: actor.cookie, headers: { "sec-fetch-site": "same-site" } }));
  });

  it("refuses the literal Origin null (sandboxed frames, redirects)", async () => {
    expectRejected(await post({ cookie: actor.cookie, headers: { origin: "null" } }));
  });

  it("lets the service's own origin through", async () => {
    expectPassed(await post({ cookie: actor.cookie, headers: { origin: new URL(gw.url).origin } }));
    expectPassed(await del({ cookie: actor.cookie, headers: { "sec-fetch-site": "same-origin" } }));
  });

  it("lets an origin listed in ALLOWED_ORIGINS through", async () => {
    expectPassed(await post({ cookie: actor.cookie, headers: { origin: ALLOWED } }));
  });

  it("lets requests with neither Origin nor Sec-Fetch-Site through (not a browser)", async () => {
    expectPassed(await post({ cookie: actor.cookie }));
    expectPassed(await del({ cookie: actor.cookie }));
  });

  it("does not apply to API-key requests, which carry no ambient credential", async () => {
    // The key routes are Session-only: reaching that check shows the CSRF guard let them by.
    for (const res of [
      await post({ key: actor.key, headers: { origin: FOREIGN } }),
      await del({ key: actor.key, headers: { origin: FOREIGN, "sec-fetch-site": "cross-site" } }),
    ]) {
      expect(errorCode(res)).not.toBe("csrf_rejected");
      expect(errorCode(res)).toBe("session_required");
    }
  });

  it("does not apply to safe methods", async () => {
    const res = await gw.request("GET", "/api/openapi.json", {
      cookie: actor.cookie,
      ip: freshIp(),
      headers: { origin: FOREIGN, "sec-fetch-site": "cross-site" },
    });
    expect(res.status).toBe(200);
  });

  it("guards the tRPC endpoint too", async () => {
    const res = await gw.request("POST", "/trpc/health.get", {
      cookie: actor.cookie,
      ip: freshIp(),
      body: {},
      headers: { origin: FOREIGN },
    });
    expectRejected(res);
  });

  it("refuses a cross-site sign-in even without a cookie (login CSRF)", async () => {
    const res = await gw.request("POST", "/api/auth/sign-in", {
      ip: freshIp(),
      body: { email: actor.user.email, password: actor.user.password },
      headers: { origin: FOREIGN },
    });
    expectRejected(res);
  });
});
