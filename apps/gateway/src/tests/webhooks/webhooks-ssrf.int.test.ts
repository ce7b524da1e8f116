import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TTestGateway } from "../../testing";
import { errorCode } from "../helpers";

describe("webhooks API SSRF guard (default: private targets refused)", () => {
  let gw: TTestGateway;
  let admin: Awaited<ReturnType<TTestGateway["createActor"]>>;

  beforeAll(async () => {
    gw = await startTestGateway();
    admin = await gw.createActor({ role: "OWNER" });
  });

  afterAll(async () => {
    await gw.close();
  });

  it.each([
    ["http://127.0.0.1/hook", "loopback"],
    ["http://10.0.0.1/hook", "private"],
    ["http://192.168.1.10:8080/hook", "private"],
    ["http://169.254.169.254/latest/meta-data/", "link-local"],
    ["http://[::1]/hook", "loopback"],
    ["http://[::ffff:127.0.0.1]/hook", "loopback"],
    ["http://[fd00::1]/hook", "unique-local"],
    ["http://100.64.0.1/hook", "shared"],
    ["http://0.0.0.0/hook", "unspecified"],
    // A name: what it resolves to is not told, only that it is not public.
    ["http://localhost:3000/hook", "does not resolve to a public address"],
  ])("refuses %s with 400 invalid_input (%s)", async (url, cls) => {
    const res = await gw.request("POST", "/api/webhooks", {
      cookie: admin.cookie,
      body: { url, events: ["scan.completed"] },
    });
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe("invalid_input");
    const body = res.body as { message: string; details: Array<{ path: string; message: string }> };
    expect(body.message).toMatch(/^Webhook URL refused: /);
    expect(body.details).toEqual([{ path: "url", message: expect.stringContaining(cls) }]);
  });

  it("refuses a host that does not resolve", async () => {
    const res = await gw.request("POST", "/api/webhooks", {
      cookie: admin.cookie,
      body: { url: "https://no-such-host.invalid/hook", events: ["scan.completed"] },
    });
    expect(res.status).toBe(400);
    expect((res.body as { message: string }).message).toMatch(/could not be resolved/);
  });

  it("creates nothing when refusing", async () => {
    const list = await gw.request("GET", "/api/webhooks", { cookie: admin.cookie });
    expect(list.body).toEqual({ webhooks: [] });
  });
});
