import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { vetTarget } from "./guard";
import { OutboundNetworkError, pinnedRequest, ResponseTooLargeError } from "./pinned-request";

// The one outbound exchange every tenant-supplied URL goes through (guarded fetch, webhooks, logos).

let server: Server;
let port: number;
const hosts: Array<string | undefined> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    hosts.push(req.headers.host);
    if (req.url === "/headers-then-hang") {
      res.writeHead(202);
      res.write("partial");
      return; // never ends
    }
    if (req.url === "/declared-big") {
      res.writeHead(200, { "content-length": "1000000" });
      res.write("x");
      return;
    }
    if (req.url === "/hang") return;
    res.writeHead(200, { "content-type": "text/plain" }).end("hello");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

// A host name that resolves (for this test) only to the local server: the connection goes to the
// vetted address, and the request still names the host.
const target = (path: string) =>
  vetTarget(`http://receiver.example:${port}${path}`, {
    allowPrivateTargets: true,
    resolve: async () => [{ address: "127.0.0.1", family: 4 }],
  });

describe("pinnedRequest", () => {
  it("connects to the vetted address, naming the URL's host", async () => {
    const res = await pinnedRequest(await target("/"), { timeoutMs: 2_000, maxResponseBytes: 100 });
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe("hello");
    expect(hosts.at(-1)).toBe(`receiver.example:${port}`);
  });

  it("settles on the status alone when asked, even if the body never ends", async () => {
    const res = await pinnedRequest(await target("/headers-then-hang"), {
      timeoutMs: 2_000,
      maxResponseBytes: 0,
      read: "status",
    });
    expect(res.status).toBe(202);
  });

  it("bounds the body (declared or streamed) and the time", async () => {
    await expect(
      pinnedRequest(await target("/declared-big"), { timeoutMs: 2_000, maxResponseBytes: 100 }),
    ).rejects.toBeInstanceOf(ResponseTooLargeError);
    await expect(
      pinnedRequest(await target("/"), { timeoutMs: 2_000, maxResponseBytes: 2 }),
    ).rejects.toBeInstanceOf(ResponseTooLargeError);
    const slow = pinnedRequest(await target("/hang"), { timeoutMs: 200, maxResponseBytes: 100 });
    await expect(slow).rejects.toBeInstanceOf(OutboundNetworkError);
    await expect(slow).rejects.toMatchObject({ code: "ETIMEDOUT" });
  });
});
