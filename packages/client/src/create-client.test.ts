import { describe, expect, it } from "vitest";
import { createPostureClient, errorCodeOf, MAX_BATCH_ITEMS, MAX_URL_LENGTH, trpcEndpoint } from "./index";
import { SessionCookies } from "./session-cookies";

// The client's own behaviour against a recording fetch: how calls are grouped into requests and
// which cookie each carries. Against the real gateway: apps/gateway/src/tests/client/.

type TSent = { method: string; url: URL; cookie: string | null; headers: Headers; body: string | null };

/** Answers every call of a request with its procedure path, as tRPC frames it. */
function recordingFetch(setCookie: (url: URL) => string[] = () => []) {
  const sent: TSent[] = [];
  const fetch = async (input: Parameters<typeof globalThis.fetch>[0], init?: RequestInit) => {
    const url = new URL(String(input));
    const headers = new Headers(init?.headers);
    sent.push({
      method: init?.method ?? "GET",
      url,
      cookie: headers.get("cookie"),
      headers,
      body: typeof init?.body === "string" ? init.body : null,
    });
    const paths = url.pathname.replace(/^\/trpc\//, "").split(",");
    const batch = url.searchParams.get("batch") === "1";
    const results = paths.map((path) => ({ result: { data: { path } } }));
    const res = new Response(JSON.stringify(batch ? results : results[0]), {
      headers: { "content-type": "application/json" },
    });
    for (const c of setCookie(url)) res.headers.append("set-cookie", c);
    return res;
  };
  return { sent, fetch: fetch as typeof globalThis.fetch };
}

describe("createPostureClient", () => {
  it("finds the tRPC endpoint from the service's URL", () => {
    expect(trpcEndpoint("https://posture.example.com")).toBe("https://posture.example.com/trpc");
    expect(trpcEndpoint("https://posture.example.com/")).toBe("https://posture.example.com/trpc");
    expect(trpcEndpoint("https://example.com/posture/trpc/")).toBe("https://example.com/posture/trpc");
    expect(trpcEndpoint(new URL("http://127.0.0.1:3000"))).toBe("http://127.0.0.1:3000/trpc");
    expect(trpcEndpoint("/")).toBe("/trpc");
  });

  it("batches the queries of one tick, at most 10 to a request", async () => {
    const { sent, fetch } = recordingFetch();
    const client = createPostureClient({ url: "http://service.test", fetch });
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => client.findings.list.query({ offset: i })),
    );
    expect(answers).toHaveLength(12);
    expect(sent.map((s) => s.url.pathname.split(",").length)).toEqual([MAX_BATCH_ITEMS, 2]);
    expect(sent.every((s) => s.method === "GET" && s.url.searchParams.get("batch") === "1")).toBe(true);
  });

  it("keeps a batch's URL within the limit, splitting where it would pass it", async () => {
    const { sent, fetch } = recordingFetch();
    const client = createPostureClient({ url: "http://service.test", fetch });
    // Ids of 1,000 characters: no more than 7 fit in 8,000.
    await Promise.all(
      Array.from({ length: 9 }, (_, i) => client.findings.get.query({ id: `${i}`.padEnd(1000, "x") })),
    );
    expect(sent.length).toBe(2);
    for (const s of sent) expect(s.url.href.length).toBeLessThanOrEqual(MAX_URL_LENGTH);
    expect(sent.reduce((n, s) => n + s.url.pathname.split(",").length, 0)).toBe(9);
  });

  it("sends mutations one per POST", async () => {
    const { sent, fetch } = recordingFetch();
    const client = createPostureClient({ url: "http://service.test", fetch });
    await Promise.all([
      client.remediations.approve.mutate({ id: "rem_1" }),
      client.remediations.cancel.mutate({ id: "rem_2" }),
    ]);
    expect(sent.map((s) => [s.method, s.url.pathname])).toEqual([
      ["POST", "/trpc/remediations.approve"],
      ["POST", "/trpc/remediations.cancel"],
    ]);
    expect(sent.map((s) => s.body)).toEqual(['{"id":"rem_1"}', '{"id":"rem_2"}']);
  });

  it("keeps the session sign-in sets, and forgets it on sign-out", async () => {
    const { sent, fetch } = recordingFetch((url) =>
      url.pathname.endsWith("auth.signIn")
        ? ["svc_session=abc123; Path=/; HttpOnly; SameSite=Lax; Max-Age=604800"]
        : url.pathname.endsWith("auth.signOut")
          ? ["svc_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0"]
          : [],
    );
    const client = createPostureClient({ url: "http://service.test", fetch });
    await client.auth.signIn.mutate({ email: "a@example.test", password: "pw" });
    await client.findings.list.query({});
    await client.auth.signOut.mutate();
    await client.findings.list.query({});
    expect(sent.map((s) => s.cookie)).toEqual([null, "svc_session=abc123", "svc_session=abc123", null]);
  });

  it("sends a given cookie (a string, or a function read per request) and the extra headers", async () => {
    const { sent, fetch } = recordingFetch(() => ["svc_session=other; Path=/"]);
    let n = 0;
    const client = createPostureClient({
      url: "http://service.test",
      fetch,
      cookie: () => `svc_session=forwarded${++n}`,
      headers: { "x-request-id": "req-1" },
    });
    await client.posture.breakdown.get.query();
    await client.posture.breakdown.get.query();
    // A forwarded cookie is the caller's: what the service sets does not replace it.
    expect(sent.map((s) => s.cookie)).toEqual(["svc_session=forwarded1", "svc_session=forwarded2"]);
    expect(sent.map((s) => s.headers.get("x-request-id"))).toEqual(["req-1", "req-1"]);
  });

  it("reads the contract's code from a failed call", async () => {
    const answer = (body: unknown, status: number) =>
      (async () =>
        new Response(JSON.stringify(body), {
          status,
          headers: { "content-type": "application/json" },
        })) as typeof globalThis.fetch;
    const fetch = answer(
      {
        error: {
          message: "Not a real code",
          code: -32600,
          data: { error: "no_such_code", message: "Not a real code", httpStatus: 403 },
        },
      },
      403,
    );
    const client = createPostureClient({ url: "http://service.test", fetch });
    const err: unknown = await client.remediations.cancel.mutate({ id: "rem_1" }).catch((e: unknown) => e);
    expect(errorCodeOf(err)).toBe("no_such_code");
    expect(errorCodeOf(new Error("plain"))).toBeUndefined();
    // The gateway's own refusals (CSRF, rate limit, batch size) carry the contract's body as is.
    const refusing = createPostureClient({
      url: "http://service.test",
      fetch: answer({ error: "csrf_rejected", message: "Cross-site request refused" }, 403),
    });
    const refused: unknown = await refusing.remediations.cancel
      .mutate({ id: "rem_1" })
      .catch((e: unknown) => e);
    expect(errorCodeOf(refused)).toBe("csrf_rejected");
  });
});

describe("SessionCookies", () => {
  it("keeps name and value, replaces by name and drops expired cookies", () => {
    const jar = new SessionCookies();
    expect(jar.header()).toBeUndefined();
    jar.store(["svc_session=a; Path=/; HttpOnly", "theme=dark"]);
    expect(jar.header()).toBe("svc_session=a; theme=dark");
    jar.store(["svc_session=b; Path=/"]);
    expect(jar.header()).toBe("svc_session=b; theme=dark");
    jar.store(["theme=dark; Expires=Thu, 01 Jan 1970 00:00:00 GMT", "svc_session=b; Max-Age=0"]);
    expect(jar.header()).toBeUndefined();
    jar.store(["=novalue", "garbage"]);
    expect(jar.header()).toBeUndefined();
  });
});
