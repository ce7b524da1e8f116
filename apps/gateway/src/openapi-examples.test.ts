import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "./openapi";
import { eachOperation } from "./openapi-examples";

// Issue 33, item 7: the reference page showed examples its own schemas reject (`limit: 0` under
// `minimum: 1`, a record as `{additionalProperty: …}`, a free plan with every feature on). Every
// example in the OpenAPI document is validated against the schema it illustrates.

const doc = buildOpenApiDocument("https://posture.example");

function validator() {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  // The document's shared schemas, reachable as "#/components/schemas/…" from every operation.
  ajv.addSchema({ $id: "doc", components: doc.components ?? {} });
  return ajv;
}

/** Every (where, schema, example) of the document: parameters, JSON request bodies, JSON responses. */
function examples(): Array<{ where: string; schema: unknown; example: unknown }> {
  const out: Array<{ where: string; schema: unknown; example: unknown }> = [];
  for (const [key, op] of eachOperation(doc)) {
    for (const p of op.parameters ?? [])
      out.push({ where: `${key} ${p.in} ${p.name}`, schema: p.schema, example: p.example });
    const body = op.requestBody?.content?.["application/json"];
    if (body) out.push({ where: `${key} body`, schema: body.schema, example: body.example });
    for (const [status, res] of Object.entries(op.responses ?? {})) {
      const media = res.content?.["application/json"];
      if (media) out.push({ where: `${key} ${status}`, schema: media.schema, example: media.example });
    }
  }
  return out;
}

/** Local references point into the "doc" schema registered above. */
const rebased = (schema: unknown): unknown =>
  JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/'));

describe("the reference page's examples", () => {
  it("give every parameter, JSON body and JSON response an example valid against its schema", () => {
    const ajv = validator();
    const all = examples();
    expect(all.length).toBeGreaterThan(300);
    const invalid: string[] = [];
    for (const e of all) {
      if (e.example === undefined) {
        invalid.push(`${e.where}: no example`);
        continue;
      }
      const validate = ajv.compile(rebased(e.schema) as object);
      if (!validate(e.example))
        invalid.push(
          `${e.where}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(e.example).slice(0, 300)}`,
        );
    }
    expect(invalid).toEqual([]);
    // The check bites: the renderer's own `limit: 0` is rejected by the schema it was shown under.
    const limit = all.find((e) => e.where === "get /findings query limit");
    expect(ajv.compile(rebased(limit?.schema) as object)(0)).toBe(false);
  }, 120_000);

  it("are plausible where fields depend on each other or a renderer would invent them", () => {
    const json = (key: string, status = "200") =>
      eachOperation(doc).find(([k]) => k === key)?.[1].responses?.[status]?.content?.["application/json"]
        ?.example;
    expect(json("get /usage")).toEqual({
      plan: "business",
      inGrace: false,
      graceEndsAt: null,
      sources: { used: 2, max: 50 },
      scans: { usedToday: 7, maxPerDay: 100 },
      features: {
        apiAccess: true,
        flowGuard: true,
        agentGuard: true,
        ueba: true,
        ticketing: true,
        complianceExport: true,
        whiteLabel: false,
      },
    });
    expect(json("get /health")).toEqual({
      status: "ok",
      time: "2026-03-02T09:30:00.000Z",
      checks: { database: "ok", redis: "ok" },
    });
    const limit = eachOperation(doc)
      .find(([k]) => k === "get /findings")?.[1]
      .parameters?.find((p) => p.name === "limit");
    expect(limit?.example).toBe(50);
    const list = json("get /findings") as { findings: Array<Record<string, unknown>> };
    expect(list.findings[0]).toMatchObject({
      severity: "HIGH",
      status: "OPEN",
      detectedAt: "2026-03-02T09:30:00.000Z",
    });
    expect(JSON.stringify(list)).not.toContain('"string"');
    // A public link's row carries no tenant check ("Tenant-configuration findings only: …").
    expect(Object.keys(list.findings[0] ?? {})).not.toEqual(expect.arrayContaining(["benchmark"]));
    expect(Object.keys(list.findings[0] ?? {})).not.toEqual(expect.arrayContaining(["tenantCheck"]));
    // The reference page's curl samples send a header parameter's example: an entity tag, not
    // the header's name spelt out ("If none match").
    const tags = new Set(
      eachOperation(doc).flatMap(([, op]) =>
        (op.parameters ?? []).filter((p) => p.name === "If-None-Match").map((p) => p.example),
      ),
    );
    expect([...tags]).toEqual(['"3q2-7wEAAAAAAAAAAAAAAAAAAAA"']);
  });
});
