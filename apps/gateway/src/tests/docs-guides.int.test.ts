import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as client from "../../../../packages/client/src/index";
import { GUIDE_FILES } from "../guides";
import { useTestGateway } from "../testing";
import { freshIp } from "./helpers";

// The getting-started guides (docs/guides/) reach the reference page through the OpenAPI
// document's description, and name only operations and exports that exist.

const gw = useTestGateway();

const guides = GUIDE_FILES.map((file) => ({
  file,
  text: readFileSync(new URL(`../../../../docs/guides/${file}`, import.meta.url), "utf8"),
}));

type TDoc = { info: { description: string }; paths: Record<string, Record<string, unknown>> };

async function served(): Promise<TDoc> {
  const res = await gw.request("GET", "/api/openapi.json", { ip: freshIp() });
  expect(res.status).toBe(200);
  return res.body as TDoc;
}

describe("getting-started guides in the API reference", () => {
  it("the served document's description holds every guide, headings included", async () => {
    const { info } = await served();
    expect(guides.map((g) => g.file)).toEqual(["integrators.md", "ui-teams.md", "partners.md", "mcp.md"]);
    for (const { file, text } of guides) {
      const headings = text.split("\n").filter((line) => /^#{1,3} /.test(line));
      expect(headings[0], file).toMatch(/^# Getting started: /);
      for (const heading of headings) expect(info.description, `${file}: ${heading}`).toContain(heading);
    }
    // Written once in the description: the general rules, then the guides in order.
    const at = guides.map((g) => info.description.indexOf(g.text.split("\n")[0] ?? ""));
    expect(at).toEqual([...at].sort((a, b) => a - b));
    expect(info.description.indexOf("**Rate limits.**")).toBeLessThan(at[0] ?? -1);
  });

  it("names only operations the document has", async () => {
    const { paths } = await served();
    const cited = guides.flatMap(({ file, text }) =>
      [...text.matchAll(/`(GET|POST|PATCH|PUT|DELETE) \/api(\/[^`?\s]*)[^`]*`/g)].map((m) => ({
        file,
        method: (m[1] ?? "").toLowerCase(),
        path: m[2] ?? "",
      })),
    );
    expect(cited.length).toBeGreaterThan(10);
    const missing = cited
      .filter((c) => !paths[c.path]?.[c.method])
      .map((c) => `${c.file}: ${c.method} ${c.path}`);
    expect(missing).toEqual([]);
  });

  it("the UI teams' guide names what @posture/client exports", () => {
    const text = guides.find((g) => g.file === "ui-teams.md")?.text ?? "";
    for (const name of ["createPostureClient", "errorCodeOf"]) {
      expect(text).toContain(name);
      expect(typeof (client as Record<string, unknown>)[name]).toBe("function");
    }
    expect(text).toContain(`at most ${client.MAX_BATCH_ITEMS} queries`);
    expect(text).toContain(`${client.MAX_URL_LENGTH.toLocaleString("en-US")} characters`);
  });

  it("the page that renders them is served from this origin", async () => {
    const page = await gw.request("GET", "/api/docs", { ip: freshIp() });
    expect(page.status).toBe(200);
    expect(page.text).toContain('src="/api/docs/assets/init.js"');
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
  });
});
