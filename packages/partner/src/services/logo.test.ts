import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchLogo, guardedFetcher, LOGO_MAX_BYTES, sniffImage, type TLogoFetcher } from "./logo";

const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.alloc(64, 1),
]);
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(64, 2)]);
const GIF = Buffer.from("GIF89a...........");

const fake =
  (status: number, bytes: Buffer): TLogoFetcher =>
  async () => ({ status, contentType: "image/png", bytes });

describe("fetchLogo", () => {
  it("accepts PNG and JPEG by their magic bytes, whatever the Content-Type says", async () => {
    expect(await fetchLogo("https://cdn.example.com/l.png", fake(200, PNG))).toMatchObject({
      mime: "image/png",
    });
    expect(await fetchLogo("https://cdn.example.com/l.jpg", fake(200, JPEG))).toMatchObject({
      mime: "image/jpeg",
    });
    expect(sniffImage(GIF)).toBeNull();
  });

  it.each([
    ["http://cdn.example.com/l.png", fake(200, PNG), /https/],
    ["not a url", fake(200, PNG), /valid URL/],
    ["https://cdn.example.com/l.gif", fake(200, GIF), /PNG or JPEG/],
    ["https://cdn.example.com/missing.png", fake(404, Buffer.alloc(0)), /HTTP 404/],
  ])("refuses %s with a 400 on logoUrl", async (url, fetcher, message) => {
    await expect(fetchLogo(url, fetcher)).rejects.toMatchObject({
      code: "invalid_input",
      message: expect.stringMatching(message),
    });
  });
});

describe("guardedFetcher", () => {
  let server: Server;
  let ca = "";
  let port = 0;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), "logo-tls-"));
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=localhost",
        "-addext",
        "subjectAltName=DNS:localhost,IP:127.0.0.1",
        "-keyout",
        join(dir, "k.pem"),
        "-out",
        join(dir, "c.pem"),
      ],
      { stdio: "ignore" },
    );
    ca = readFileSync(join(dir, "c.pem"), "utf8");
    server = createServer({ key: readFileSync(join(dir, "k.pem")), cert: ca }, (req, res) => {
      if (req.url === "/big.png") {
        res.writeHead(200, { "content-type": "image/png" });
        res.end(Buffer.concat([PNG, Buffer.alloc(LOGO_MAX_BYTES)]));
        return;
      }
      res.writeHead(200, { "content-type": "image/png" });
      res.end(PNG);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("fetches over TLS, connecting only to the vetted address", async () => {
    const fetcher = guardedFetcher({
      allowPrivateTargets: true,
      ca,
      resolve: async () => [{ address: "127.0.0.1", family: 4 }],
    });
    const logo = await fetchLogo(`https://localhost:${port}/logo.png`, fetcher);
    expect(logo.bytes.equals(PNG)).toBe(true);
  });

  it("refuses private addresses unless allowed, and bodies over the limit", async () => {
    const strict = guardedFetcher({
      allowPrivateTargets: false,
      ca,
      resolve: async () => [{ address: "127.0.0.1", family: 4 }],
    });
    await expect(fetchLogo(`https://localhost:${port}/logo.png`, strict)).rejects.toMatchObject({
      message: expect.stringMatching(/refused/),
    });
    const open = guardedFetcher({
      allowPrivateTargets: true,
      ca,
      resolve: async () => [{ address: "127.0.0.1", family: 4 }],
    });
    await expect(fetchLogo(`https://localhost:${port}/big.png`, open)).rejects.toMatchObject({
      message: expect.stringMatching(/larger than/),
    });
  });
});
