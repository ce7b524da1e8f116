import { request as httpRequest } from "node:http";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { beforeAll, describe, expect, it } from "vitest";
import { routeCatalog } from "@posture/platform";
import { entityTag } from "../middleware/conditional";
import { appRouter } from "../router";
import { useTestGateway, type TTestResponse } from "../testing";
import { freshIp } from "./helpers";
import { seedFinding } from "./posture/seed-finding";

// Conditional requests (CONTRACT "conditional requests"): every JSON GET under /api and on the
// tRPC GET path carries a strong ETag over its identity body; If-None-Match of it is a 304 with no
// body that the rate limit does not count.

const gw = useTestGateway();
const TAG = /^"[A-Za-z0-9_-]{27}"$/;

type TActor = Awaited<ReturnType<typeof gw.createActor>>;
let a: TActor;
// A second gateway without Redis: the limiter's in-process windows refund a 304 too.
const local = useTestGateway({ redisUrl: null });
let localActor: TActor;
beforeAll(async () => {
  a = await gw.createActor({ plan: "business" });
  localActor = await local.createActor({ plan: "business" });
});

/** `r=<remaining>` of the IETF RateLimit header. */
const remaining = (res: TTestResponse) => Number(/;r=(\d+)/.exec(res.headers.get("ratelimit") ?? "")?.[1]);

function expectTagged(res: TTestResponse) {
  expect(res.status).toBe(200);
  expect(res.headers.get("etag")).toMatch(TAG);
  // The tag of the identity body this client read.
  expect(res.headers.get("etag")).toBe(entityTag(res.text));
  expect(res.headers.get("cache-control")).toBe("private, no-cache");
  expect(res.headers.get("vary")).toMatch(/accept-encoding/i);
  return res.headers.get("etag") as string;
}

function expectNotModified(res: TTestResponse, tag: string) {
  expect(res.status).toBe(304);
  expect(res.text).toBe("");
  expect(res.headers.get("etag")).toBe(tag);
  expect(res.headers.get("cache-control")).toBe("private, no-cache");
  expect(res.headers.get("vary")).toMatch(/accept-encoding/i);
  expect(res.headers.get("content-type")).toBeNull();
}

/** A raw GET (fetch would decode the body): status, headers and the bytes as sent. */
function rawGet(path: string, headers: Record<string, string>) {
  return new Promise<{
    status: number;
    headers: Record<string, string | string[] | undefined>;
    body: Buffer;
  }>((resolve, reject) => {
    const req = httpRequest(`${gw.url}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

describe("ETag and If-None-Match on the REST GETs", () => {
  it("tags a sample of reads and answers 304 with no body to the current tag", async () => {
    await seedFinding(gw.db.db, a.orgId);
    for (const path of [
      "/api/findings?limit=50",
      "/api/usage",
      "/api/audit",
      "/api/timeline",
      "/api/incidents",
    ]) {
      const ip = freshIp();
      const first = await gw.request("GET", path, { key: a.key, ip });
      const tag = expectTagged(first);
      const again = await gw.request("GET", path, { key: a.key, ip });
      expect(again.headers.get("etag")).toBe(tag);
      expectNotModified(
        await gw.request("GET", path, { key: a.key, ip, headers: { "if-none-match": tag } }),
        tag,
      );
    }
  });

  it("compares lists, weak tags and * as RFC 9110 says, and serves anything else in full", async () => {
    const ip = freshIp();
    const tag = expectTagged(await gw.request("GET", "/api/findings", { key: a.key, ip }));
    const conditional = (value: string) =>
      gw.request("GET", "/api/findings", { key: a.key, ip, headers: { "if-none-match": value } });
    expectNotModified(await conditional(`"elsewhere", ${tag}`), tag);
    expectNotModified(await conditional(`W/${tag}`), tag);
    expectNotModified(await conditional("*"), tag);
    for (const other of ['"elsewhere"', tag.slice(1, -1), "W/", "garbage, ,"]) {
      const res = await conditional(other);
      expect(res.status).toBe(200);
      expect(res.headers.get("etag")).toBe(tag);
    }
  });

  it("gives a changed resource a new tag", async () => {
    const ip = freshIp();
    const before = expectTagged(await gw.request("GET", "/api/incidents", { key: a.key, ip }));
    const created = await gw.request("POST", "/api/incidents", {
      key: a.key,
      ip,
      body: { title: "Changed", priority: "P3", findingIds: [] },
    });
    expect(created.status).toBe(201);
    const after = await gw.request("GET", "/api/incidents", {
      key: a.key,
      ip,
      headers: { "if-none-match": before },
    });
    const tag = expectTagged(after);
    expect(tag).not.toBe(before);
    expect((after.body as { incidents: Array<{ title: string }> }).incidents.map((i) => i.title)).toContain(
      "Changed",
    );
    expectNotModified(
      await gw.request("GET", "/api/incidents", { key: a.key, ip, headers: { "if-none-match": tag } }),
      tag,
    );
  });

  it("does not charge a 304 to the rate limit", async () => {
    const ip = freshIp();
    const first = await gw.request("GET", "/api/usage", { key: a.key, ip });
    const tag = expectTagged(first);
    expect(remaining(first)).toBe(59);
    // More conditional requests than the whole budget: none is counted, none is refused.
    for (let i = 0; i < 65; i++) {
      const res = await gw.request("GET", "/api/usage", {
        key: a.key,
        ip,
        headers: { "if-none-match": tag },
      });
      expect(res.status).toBe(304);
      expect(remaining(res)).toBe(59);
    }
    const counted = await gw.request("GET", "/api/usage", { key: a.key, ip });
    expect(counted.status).toBe(200);
    expect(remaining(counted)).toBe(58);
    // A conditional request that does not match is a full answer, counted as any other.
    const stale = await gw.request("GET", "/api/usage", {
      key: a.key,
      ip,
      headers: { "if-none-match": '"stale"' },
    });
    expect(stale.status).toBe(200);
    expect(remaining(stale)).toBe(57);
    // Checked on the way in, counted once it was known not to be a 304: the next request sees it.
    expect(remaining(await gw.request("GET", "/api/usage", { key: a.key, ip }))).toBe(56);
  });

  it("does not charge a 304 when the limiter counts in memory (no Redis)", async () => {
    // The same rule in the in-process fallback: see the second gateway below.
    const ip = freshIp();
    const first = await local.request("GET", "/api/usage", { key: localActor.key, ip });
    const tag = expectTagged(first);
    expect(remaining(first)).toBe(59);
    for (let i = 0; i < 3; i++) {
      const res = await local.request("GET", "/api/usage", {
        key: localActor.key,
        ip,
        headers: { "if-none-match": tag },
      });
      expect(res.status).toBe(304);
      expect(remaining(res)).toBe(59);
    }
    expect(remaining(await local.request("GET", "/api/usage", { key: localActor.key, ip }))).toBe(58);
    const stale = await local.request("GET", "/api/usage", {
      key: localActor.key,
      ip,
      headers: { "if-none-match": '"stale"' },
    });
    expect(remaining(stale)).toBe(57);
    expect(remaining(await local.request("GET", "/api/usage", { key: localActor.key, ip }))).toBe(56);
  });

  it("tags errors and non-JSON answers not at all: they stay no-store", async () => {
    const ip = freshIp();
    const missing = await gw.request("GET", "/api/findings/00000000-0000-4000-8000-000000000000", {
      key: a.key,
      ip,
    });
    expect(missing.status).toBe(404);
    expect(missing.headers.get("etag")).toBeNull();
    expect(missing.headers.get("cache-control")).toBe("no-store");
    const unauthenticated = await gw.request("GET", "/api/findings", { ip });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get("etag")).toBeNull();
    const csv = await gw.request("GET", "/api/findings/export?format=csv", { key: a.key, ip });
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(csv.headers.get("etag")).toBeNull();
    // Mutations are never conditional.
    const created = await gw.request("POST", "/api/incidents", {
      key: a.key,
      ip,
      body: { title: "No tag", priority: "P3", findingIds: [] },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get("etag")).toBeNull();
    expect(created.headers.get("cache-control")).toBe("no-store");
  });
});

describe("compression and the ETag agree", () => {
  it("compresses a JSON body over 1 kB with gzip or br, tagged by its identity body", async () => {
    for (let i = 0; i < 8; i++)
      await gw.request("POST", "/api/incidents", {
        key: a.key,
        ip: freshIp(),
        body: { title: `Compressed incident ${i} with a title long enough`, priority: "P3", findingIds: [] },
      });
    const ip = freshIp();
    const auth = { authorization: `Bearer ${a.key}`, "x-forwarded-for": ip };
    const identity = await rawGet("/api/audit?limit=100", { ...auth, "accept-encoding": "identity" });
    expect(identity.status).toBe(200);
    expect(identity.headers["content-encoding"]).toBeUndefined();
    expect(identity.body.length).toBeGreaterThan(1024);
    const tag = entityTag(identity.body);
    expect(identity.headers.etag).toBe(tag);

    const gzip = await rawGet("/api/audit?limit=100", { ...auth, "accept-encoding": "gzip" });
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gzip.body).equals(identity.body)).toBe(true);
    expect(gzip.headers.etag).toBe(tag);
    expect(gzip.headers.vary).toMatch(/accept-encoding/i);

    const br = await rawGet("/api/audit?limit=100", { ...auth, "accept-encoding": "br" });
    expect(br.headers["content-encoding"]).toBe("br");
    expect(brotliDecompressSync(br.body).equals(identity.body)).toBe(true);
    expect(br.headers.etag).toBe(tag);

    // The one tag revalidates whichever coding the cache holds; a 304 has no coding and no body.
    const notModified = await rawGet("/api/audit?limit=100", {
      ...auth,
      "accept-encoding": "gzip, br",
      "if-none-match": tag,
    });
    expect(notModified.status).toBe(304);
    expect(notModified.body.length).toBe(0);
    expect(notModified.headers["content-encoding"]).toBeUndefined();
    expect(notModified.headers.etag).toBe(tag);
  });

  it("leaves a body under 1 kB uncompressed", async () => {
    const small = await rawGet("/api/usage", {
      authorization: `Bearer ${a.key}`,
      "x-forwarded-for": freshIp(),
      "accept-encoding": "gzip, br",
    });
    expect(small.status).toBe(200);
    expect(small.body.length).toBeLessThan(1024);
    expect(small.headers["content-encoding"]).toBeUndefined();
    expect(small.headers.etag).toBe(entityTag(small.body));
  });
});

describe("the tRPC GET path", () => {
  it("tags a query and a batch, answers 304 and does not charge either", async () => {
    const ip = freshIp();
    const headers = { "x-service-client": "test" };
    const single = await gw.request("GET", "/trpc/usage.get", { key: a.key, ip, headers });
    const tag = expectTagged(single);
    expect(remaining(single)).toBe(59);
    const single304 = await gw.request("GET", "/trpc/usage.get", {
      key: a.key,
      ip,
      headers: { ...headers, "if-none-match": tag },
    });
    expectNotModified(single304, tag);
    expect(remaining(single304)).toBe(59);

    const batchPath = `/trpc/usage.get,incidents.list?batch=1&input=${encodeURIComponent('{"1":{}}')}`;
    const batch = await gw.request("GET", batchPath, { key: a.key, ip, headers });
    const batchTag = expectTagged(batch);
    expect(remaining(batch)).toBe(57); // two calls
    const batch304 = await gw.request("GET", batchPath, {
      key: a.key,
      ip,
      headers: { ...headers, "if-none-match": batchTag },
    });
    expectNotModified(batch304, batchTag);
    expect(remaining(batch304)).toBe(57);
    expect(remaining(await gw.request("GET", "/trpc/usage.get", { key: a.key, ip, headers }))).toBe(56);
  });

  it("leaves a streamed batch (application/jsonl) untagged: its parts leave as they are ready", async () => {
    const res = await gw.request("GET", "/trpc/usage.get,usage.get?batch=1", {
      key: a.key,
      ip: freshIp(),
      headers: { "trpc-accept": "application/jsonl" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).toBeNull();
    expect(res.headers.get("cache-control")).toBe("no-store");
  });
});

// ---- every JSON GET route ----

type TGetRoute = { name: string; path: string; auth: string; download: boolean };
const getRoutes: TGetRoute[] = routeCatalog(appRouter).rest.flatMap(({ key, rest, access, download }) => {
  if (rest.method !== "GET" || !access) return [];
  return [{ name: key, path: `/api${rest.path}`, auth: access.auth, download: !!download }];
});
// A made-up id is a 404: the routes with a path parameter share the mechanism and are sampled
// with real ids below (findings/{id}, incidents/{id}).
const walked = getRoutes.filter((r) => !r.path.includes("{"));
/** Query parameters a route needs to answer at all. */
const QUERY: Record<string, string> = { "findings.export": "?format=ndjson" };

describe("every JSON GET route answers with an ETag and a 304 to it", () => {
  let enterprise: TActor;
  let partner: TActor;
  beforeAll(async () => {
    enterprise = await gw.createActor({ plan: "enterprise" });
    partner = await gw.createActor({ plan: "enterprise", isPartner: true });
    await seedFinding(gw.db.db, enterprise.orgId);
  });

  it("walks the router", async () => {
    const untagged: string[] = [];
    const notJson: string[] = [];
    const changing: string[] = [];
    let tagged = 0;
    const downloads: string[] = [];
    for (const route of walked) {
      const who = route.auth === "partner" ? partner : enterprise;
      const credential = route.auth === "session" ? { cookie: who.cookie } : { key: who.key };
      const ip = freshIp();
      const res = await gw.request("GET", `${route.path}${QUERY[route.name] ?? ""}`, { ...credential, ip });
      const json = /^application\/json/.test(res.headers.get("content-type") ?? "");
      if (route.download && res.status === 200 && !json) {
        // Files (PDF, CSV, NDJSON) are not conditional.
        if (res.headers.get("etag") === null) downloads.push(route.name);
        else untagged.push(`${route.name}: a download with an ETag`);
        continue;
      }
      if (res.status !== 200 || !json) {
        notJson.push(`${route.name} ${res.status}`);
        continue;
      }
      const tag = res.headers.get("etag");
      if (tag !== entityTag(res.text)) {
        untagged.push(route.name);
        continue;
      }
      const again = await gw.request("GET", route.path, {
        ...credential,
        ip,
        headers: { "if-none-match": tag },
      });
      if (again.status === 304 && again.text === "") tagged++;
      // A body that changes on every read (a clock in it) is a full answer with its own tag.
      else if (
        again.status === 200 &&
        again.text !== res.text &&
        again.headers.get("etag") === entityTag(again.text)
      )
        changing.push(route.name);
      else untagged.push(`${route.name}: ${again.status}`);
    }
    expect(untagged).toEqual([]);
    expect(changing.sort()).toEqual(["audit.verify", "health.get", "health.live.get"]);
    expect(notJson).toEqual([]);
    expect(downloads.sort()).toEqual([
      "compliance.gapReport.get",
      "findings.export",
      "partner.reports.portfolio.pdf.get",
      "reports.compliance.get",
    ]);
    expect(tagged + changing.length + downloads.length).toBe(walked.length);
    expect(tagged).toBe(walked.length - 7);
  });

  it("tags reads of one resource by id", async () => {
    const finding = await seedFinding(gw.db.db, a.orgId);
    const created = await gw.request("POST", "/api/incidents", {
      key: a.key,
      ip: freshIp(),
      body: { title: "By id", priority: "P2", findingIds: [finding.id] },
    });
    const incidentId = (created.body as { id: string }).id;
    for (const path of [`/api/findings/${finding.id}`, `/api/incidents/${incidentId}`]) {
      const ip = freshIp();
      const tag = expectTagged(await gw.request("GET", path, { key: a.key, ip }));
      expectNotModified(
        await gw.request("GET", path, { key: a.key, ip, headers: { "if-none-match": tag } }),
        tag,
      );
    }
  });
});
