import { describe, expect, it } from "vitest";
import { useTestGateway } from "../../testing";
import { freshIp } from "../helpers";

// Issue 31, deliverable 5: a demo GitHub organization has revisions like the suites' demo tenants.
// A sync's `demo.advance` moves it on, and what its revisions did (every fourth revision a quiet
// repository made public for 21 revisions, or an outside collaborator given write for 28,
// alternately: packages/connectors/src/github/demo-revisions.ts) opens and resolves findings.

type TFinding = { ruleId: string; resourceName: string; status: string; connectorType: string };
type TSync = { status: string; kind: string; findingsNew: number; findingsResolved: number };

const gw = useTestGateway();

describe("GitHub demo revisions over HTTP", () => {
  it("a sync that advances the organization finds what its revisions exposed, and what they fixed", async () => {
    const owner = await gw.createActor({ plan: "business" });
    const call = async (method: string, path: string, body?: unknown, status = 200) => {
      const res = await gw.request(method, path, {
        cookie: owner.cookie,
        ip: freshIp(),
        ...(body === undefined ? {} : { body }),
      });
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(status);
      return res.body;
    };
    const { id } = (await call(
      "POST",
      "/api/connectors",
      { type: "github", displayName: "GitHub", mode: "demo", demo: { repositories: 40 } },
      201,
    )) as { id: string };
    const sync = async (advance?: number) =>
      (await call(
        "POST",
        `/api/connectors/${id}/sync`,
        advance === undefined ? undefined : { demo: { advance } },
      )) as TSync;
    const drifted = async () =>
      ((await call("GET", "/api/findings?limit=200&status=OPEN")) as { findings: TFinding[] }).findings
        .filter((f) => f.resourceName.startsWith("northwind-labs/service-"))
        .map((f) => `${f.ruleId} ${f.resourceName}`)
        .sort();

    expect(await sync()).toMatchObject({ status: "COMPLETE", findingsNew: 24, findingsResolved: 0 });
    expect(await drifted()).toEqual([]);

    // Revision 8: service-0039 made public at 4, vendor-8 given write on service-0018 at 8.
    expect(await sync(8)).toMatchObject({ status: "COMPLETE", findingsNew: 2, findingsResolved: 0 });
    expect(await drifted()).toEqual([
      "external_share northwind-labs/service-0018",
      "public_link northwind-labs/service-0039",
    ]);
    const { connectors } = (await call("GET", "/api/connectors")) as {
      connectors: Array<{ id: string; demo: { revision: number; repositories: number } }>;
    };
    expect(connectors.find((c) => c.id === id)?.demo).toMatchObject({ revision: 8, repositories: 40 });

    // Revision 29: service-0039 private again (21 revisions on); 0019, 0037 and 0028 made public
    // (at 12, 20, 28), vendor-16 and vendor-24 given write on 0029 and 0036, vendor-8 still there.
    expect(await sync(21)).toMatchObject({ status: "COMPLETE", findingsNew: 5, findingsResolved: 1 });
    expect(await drifted()).toEqual([
      "external_share northwind-labs/service-0018",
      "external_share northwind-labs/service-0029",
      "external_share northwind-labs/service-0036",
      "public_link northwind-labs/service-0019",
      "public_link northwind-labs/service-0028",
      "public_link northwind-labs/service-0037",
    ]);
    const all = ((await call("GET", "/api/findings?limit=200&status=RESOLVED")) as { findings: TFinding[] })
      .findings;
    expect(
      all.find((f) => f.ruleId === "public_link" && f.resourceName === "northwind-labs/service-0039"),
    ).toMatchObject({ status: "RESOLVED", connectorType: "github" });
  }, 120_000);
});
