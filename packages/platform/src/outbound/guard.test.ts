import { describe, expect, it } from "vitest";
import { parseTargetUrl, pinnedLookup, TargetRefusedError, vetTarget, type TResolver } from "./guard";

const fixed =
  (answers: Record<string, string[]>): TResolver =>
  async (host) => {
    const list = answers[host];
    if (!list) throw Object.assign(new Error("ENOTFOUND"), { code: "ENOTFOUND" });
    return list.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };

const refused = async (url: string, resolve?: TResolver) => {
  const err = await vetTarget(url, { allowPrivateTargets: false, resolve }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(TargetRefusedError);
  return (err as Error).message;
};

describe("parseTargetUrl", () => {
  it.each([
    "ftp://example.com/x",
    "file:///etc/passwd",
    "gopher://x",
    "javascript:alert(1)",
    "not a url",
    "/relative",
  ])("refuses %s", (u) => {
    expect(() => parseTargetUrl(u)).toThrow(TargetRefusedError);
  });

  it("refuses credentials in the URL", () => {
    expect(() => parseTargetUrl("https://user:pw@example.com/")).toThrow(/credentials/);
  });

  it("accepts http and https", () => {
    expect(parseTargetUrl("https://hooks.example.com/a?b=1").hostname).toBe("hooks.example.com");
    expect(parseTargetUrl("http://example.com:8080/").port).toBe("8080");
  });
});

describe("vetTarget", () => {
  it.each([
    ["http://127.0.0.1/", "loopback"],
    ["http://10.0.0.1/", "private"],
    ["http://169.254.169.254/latest/meta-data", "link-local"],
    ["http://[::1]/", "loopback"],
    ["http://[::ffff:127.0.0.1]/", "loopback"],
    ["http://[fd00::1]/", "unique-local"],
    ["http://0.0.0.0/", "unspecified"],
    // WHATWG URL parsing normalises these spellings to 127.0.0.1 before we look.
    ["http://2130706433/", "loopback"],
    ["http://0x7f.1/", "loopback"],
    ["http://127.1/", "loopback"],
  ])("refuses the literal %s (%s)", async (url, cls) => {
    expect(await refused(url)).toContain(cls);
  });

  it("refuses a name that resolves to loopback (real DNS: localhost)", async () => {
    expect(await refused("http://localhost:8080/")).toBe(
      "host localhost does not resolve to a public address",
    );
  });

  it("refuses a name if any of its addresses is private", async () => {
    const resolve = fixed({ "mixed.example": ["93.184.216.34", "10.1.2.3"] });
    const message = await refused("https://mixed.example/", resolve);
    expect(message).toBe("host mixed.example does not resolve to a public address");
    // What an internal name resolves to, or which kind of address it is, is never told.
    expect(message).not.toMatch(/10\.1\.2\.3|private/);
  });

  it("refuses a name that does not resolve", async () => {
    expect(await refused("https://nowhere.example/", fixed({}))).toMatch(/could not be resolved/);
  });

  it("gives up on a resolver that does not answer in time", async () => {
    const hung: TResolver = () => new Promise(() => {});
    const err = await vetTarget("https://slow.example/", {
      allowPrivateTargets: false,
      resolve: hung,
      timeoutMs: 30,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TargetRefusedError);
    expect((err as Error).message).toBe("resolving slow.example timed out");
  });

  it("accepts a name resolving only to public addresses and returns them for pinning", async () => {
    const resolve = fixed({ "hooks.example": ["93.184.216.34", "2606:4700::1"] });
    const t = await vetTarget("https://hooks.example/in", { allowPrivateTargets: false, resolve });
    expect(t.hostname).toBe("hooks.example");
    expect(t.addresses.map((a) => a.address)).toEqual(["93.184.216.34", "2606:4700::1"]);
  });

  it("allows private targets only when told to", async () => {
    const t = await vetTarget("http://127.0.0.1:9/", { allowPrivateTargets: true });
    expect(t.addresses).toEqual([{ address: "127.0.0.1", family: 4 }]);
    await expect(vetTarget("ftp://127.0.0.1/", { allowPrivateTargets: true })).rejects.toThrow(
      TargetRefusedError,
    );
  });
});

describe("pinnedLookup", () => {
  const lookup = pinnedLookup([
    { address: "93.184.216.34", family: 4 },
    { address: "2606:4700::1", family: 6 },
  ]);

  it("answers with the vetted addresses whatever the name", () => {
    lookup("evil.example", { all: true }, (err, address) => {
      expect(err).toBeNull();
      expect(address).toEqual([
        { address: "93.184.216.34", family: 4 },
        { address: "2606:4700::1", family: 6 },
      ]);
    });
    lookup("evil.example", { family: 6 }, (err, address, family) => {
      expect(err).toBeNull();
      expect([address, family]).toEqual(["2606:4700::1", 6]);
    });
  });

  it("fails rather than falling back to DNS when no vetted address fits", () => {
    pinnedLookup([{ address: "93.184.216.34", family: 4 }])("x", { family: 6 }, (err) => {
      expect(err?.code).toBe("ENOTFOUND");
    });
  });
});
