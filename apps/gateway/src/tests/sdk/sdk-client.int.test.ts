import { describe, expect, it } from "vitest";
import { ApiError, createClient } from "../../../../../packages/sdk/src/index";
import { useTestGateway } from "../../testing";
import { freshIp } from "../helpers";

// The SDK's client against the real gateway: the three list styles, the contract's errors and
// the server's idempotency replay, as the unit tests check them against a scripted server.
const gw = useTestGateway();

async function business() {
  const a = await gw.createActor({ plan: "business" });
  return { ...a, api: createClient({ baseUrl: gw.url, apiKey: a.key }) };
}

describe("@posture/sdk against the gateway", () => {
  it("pages the audit log by page number and the timeline by cursor, as one page would list them", async () => {
    const a = await business();
    // Seven incidents: seven audit entries and seven timeline items.
    for (let i = 0; i < 7; i++)
      await a.api.post("/incidents", { body: { title: `Incident ${i}`, priority: "P3", findingIds: [] } });

    const audit = await a.api.get("/audit", { params: { query: { limit: 100 } } });
    expect(audit.entries.length).toBeGreaterThanOrEqual(7);
    const paged: string[] = [];
    for await (const e of a.api.paginate("/audit", { params: { query: { limit: 2 } } })) paged.push(e.id);
    expect(paged).toEqual(audit.entries.map((e) => e.id));

    const timeline = await a.api.get("/timeline", { params: { query: { limit: 100 } } });
    expect(timeline.items.length).toBeGreaterThanOrEqual(7);
    const walked: string[] = [];
    for await (const item of a.api.paginate("/timeline", { params: { query: { limit: 3 } } }))
      walked.push(item.id);
    expect(walked).toEqual(timeline.items.map((item) => item.id));

    const incidents = (await a.api.get("/incidents")).incidents;
    expect(incidents.map((i) => i.title).sort()).toEqual(
      Array.from({ length: 7 }, (_, i) => `Incident ${i}`),
    );
  });

  it("throws ApiError with the contract's code and the request id", async () => {
    const a = await business();
    const missing = await a.api
      .get("/findings/{id}", { params: { path: { id: "00000000-0000-4000-8000-000000000000" } } })
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ApiError);
    expect(missing).toMatchObject({ status: 404, code: "not_found" });
    expect((missing as ApiError).requestId).toEqual(expect.any(String));

    const invalid = (await a.api
      .get("/findings", { params: { query: { limit: 100_000 } } })
      .catch((e: unknown) => e)) as ApiError;
    expect(invalid).toMatchObject({ status: 400, code: "invalid_input" });
    expect(invalid.details?.[0]?.path).toBe("limit");

    const team = await gw.createActor({ plan: "team" });
    const gated = (await createClient({ baseUrl: gw.url, apiKey: team.key })
      .get("/usage")
      .catch((e: unknown) => e)) as ApiError;
    expect(gated).toMatchObject({ status: 402, code: "plan_upgrade_required" });

    const unknownKey = createClient({ baseUrl: gw.url, apiKey: `svc_ak_${"0".repeat(40)}` });
    await expect(unknownKey.get("/usage")).rejects.toMatchObject({ status: 401, code: "unauthenticated" });
  });

  it("sends one Idempotency-Key per write, which the server replays for a repeated call", async () => {
    const a = await business();
    const body = { title: "Once", priority: "P2" as const, findingIds: [] };
    const headers = { "Idempotency-Key": "sdk-int-once" };
    const first = await a.api.raw.POST("/incidents", { body, headers });
    const second = await a.api.raw.POST("/incidents", { body, headers });
    expect(first.response.status).toBe(201);
    expect(second.data?.id).toBe(first.data?.id);
    expect(second.response.headers.get("idempotent-replayed")).toBe("true");
    // The same key with another body: 409 conflict, thrown by the throwing calls.
    await expect(
      a.api.post("/incidents", { body: { ...body, title: "Twice" }, headers }),
    ).rejects.toMatchObject({ status: 409, code: "conflict" });
    // Without a key of the caller's, each call gets its own: two incidents.
    await a.api.post("/incidents", { body: { ...body, title: "Fresh" } });
    await a.api.post("/incidents", { body: { ...body, title: "Fresh" } });
    const titles = (await a.api.get("/incidents")).incidents.map((i) => i.title);
    expect(titles.filter((t) => t === "Once")).toHaveLength(1);
    expect(titles.filter((t) => t === "Fresh")).toHaveLength(2);
  });

  it("revalidates a GET it has read before: the 304 is not charged, the kept body is returned", async () => {
    const a = await gw.createActor({ plan: "business" });
    const wire: string[] = [];
    const api = createClient({
      baseUrl: gw.url,
      apiKey: a.key,
      headers: { "x-forwarded-for": freshIp() },
      fetch: async (request) => {
        const res = await globalThis.fetch(request);
        const r = /;r=(\d+)/.exec(res.headers.get("ratelimit") ?? "")?.[1];
        wire.push(`${res.status} r=${r} ${request.headers.get("if-none-match") ? "conditional" : "plain"}`);
        return res;
      },
    });
    const first = await api.get("/incidents");
    expect(first.incidents).toEqual([]);
    expect(await api.get("/incidents")).toEqual(first);
    expect(await api.get("/incidents")).toEqual(first);
    await api.post("/incidents", { body: { title: "Seen", priority: "P3", findingIds: [] } });
    const changed = await api.get("/incidents");
    expect(changed.incidents.map((i) => i.title)).toEqual(["Seen"]);
    expect(await api.get("/incidents")).toEqual(changed);
    expect(wire).toEqual([
      "200 r=59 plain",
      "304 r=59 conditional",
      "304 r=59 conditional",
      "201 r=58 plain",
      "200 r=57 conditional",
      "304 r=57 conditional",
    ]);
  });
});
