import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGuardedFetch } from "./fetch";
import { TargetRefusedError, type TResolver } from "./guard";

type TSeen = { method: string; url: string; host: string | undefined; body: string };
const seen: TSeen[] = [];
let server: Server;
let port: number;

function handle(req: IncomingMessage, res: ServerResponse) {
  let body = "";
  req.on("data", (c: Buffer) => (body += c.toString("utf8")));
  req.on("end", () => {
    seen.push({ method: req.method ?? "", url: req.url ?? "", host: req.headers.host, body });
    if (req.url === "/redirect") {
      res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data" }).end();
    } else if (req.url === "/big") {
      res.writeHead(200, { "content-type": "text/plain" }).end("x".repeat(10_000));
    } else if (req.url === "/slow") {
      setTimeout(() => res.end("late"), 2_000);
    } else if (req.url === "/empty") {
      res.writeHead(204).end();
    } else {
      res
        .writeHead(201, { "content-type": "application/json", "x-echo": "yes" })
        .end(JSON.stringify({ body }));
    }
  });
}

beforeAll(async () => {
  server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** A resolver stub that gives its answers in turn (the last one from then on) and counts calls. */
function answering(...answers: string[]) {
  let calls = 0;
  const resolve: TResolver = async () => {
    const address = answers[Math.min(calls, answers.length - 1)] ?? "";
    calls++;
    return [{ address, family: address.includes(":") ? 6 : 4 }];
  };
  return { resolve, calls: () => calls };
}

describe("createGuardedFetch", () => {
  it("connects to the address it checked, with the URL's own Host, and resolves once per call", async () => {
    // First answer: where the server is. Second: an address nothing listens on. The call succeeds,
    // so the connection used the checked answer and did not look the name up again.
    const dns = answering("127.0.0.1", "10.255.255.1");
    const f = createGuardedFetch({ allowPrivateTargets: true, resolve: dns.resolve });
    const res = await f(`http://tracker.test:${port}/issues?x=1`, {
      method: "POST",
      headers: { authorization: "Bearer t" },
      body: '{"a":1}',
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("x-echo")).toBe("yes");
    expect(await res.json()).toEqual({ body: '{"a":1}' });
    expect(dns.calls()).toBe(1);
    expect(seen.at(-1)).toMatchObject({ method: "POST", url: "/issues?x=1", host: `tracker.test:${port}` });
  });

  it("refuses a name that rebinds from public to private between two calls; nothing is sent", async () => {
    const dns = answering("93.184.216.34", "127.0.0.1");
    const f = createGuardedFetch({ allowPrivateTargets: false, resolve: dns.resolve, timeoutMs: 500 });
    // First call: public, vetted and pinned (nothing listens there for us: a network error, not a refusal).
    const first = await f(`http://rebind.test:${port}/a`).catch((e: unknown) => e);
    expect(first).not.toBeInstanceOf(TargetRefusedError);
    const before = seen.length;
    const second = await f(`http://rebind.test:${port}/b`).catch((e: unknown) => e);
    expect(second).toBeInstanceOf(TargetRefusedError);
    expect((second as Error).message).toBe("host rebind.test does not resolve to a public address");
    expect(seen.length).toBe(before);
  });

  it("refuses private literals, IPv4-mapped IPv6 and metadata addresses unless private targets are allowed", async () => {
    const f = createGuardedFetch({ allowPrivateTargets: false });
    for (const url of [
      `http://127.0.0.1:${port}/`,
      `http://[::ffff:127.0.0.1]:${port}/`,
      "http://169.254.169.254/latest/meta-data",
      "http://[fd00::1]/",
    ]) {
      await expect(f(url)).rejects.toBeInstanceOf(TargetRefusedError);
    }
    const allowed = createGuardedFetch({ allowPrivateTargets: true });
    expect((await allowed(`http://127.0.0.1:${port}/`)).status).toBe(201);
  });

  it("never follows a redirect", async () => {
    const f = createGuardedFetch({ allowPrivateTargets: true });
    const before = seen.length;
    const res = await f(`http://127.0.0.1:${port}/redirect`);
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("http://169.254.169.254/latest/meta-data");
    expect(seen.length).toBe(before + 1);
  });

  it("bounds the body size and the time", async () => {
    const small = createGuardedFetch({ allowPrivateTargets: true, maxResponseBytes: 1_000 });
    const big = await small(`http://127.0.0.1:${port}/big`).catch((e: unknown) => e);
    expect(big).toBeInstanceOf(TypeError);
    expect((big as { cause: { code: string } }).cause.code).toBe("E_RESPONSE_TOO_LARGE");

    const quick = createGuardedFetch({ allowPrivateTargets: true, timeoutMs: 100 });
    const started = Date.now();
    const slow = await quick(`http://127.0.0.1:${port}/slow`).catch((e: unknown) => e);
    expect((slow as { cause: { code: string } }).cause.code).toBe("ETIMEDOUT");
    expect(Date.now() - started).toBeLessThan(1_500);

    const aborted = await createGuardedFetch({ allowPrivateTargets: true })(`http://127.0.0.1:${port}/slow`, {
      signal: AbortSignal.timeout(50),
    }).catch((e: unknown) => e);
    expect((aborted as Error).name).toBe("TimeoutError");
  });

  it("answers a 204 with an empty body", async () => {
    const res = await createGuardedFetch({ allowPrivateTargets: true })(`http://127.0.0.1:${port}/empty`);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
  });
});
