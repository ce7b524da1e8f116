import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { createSourceAdapter, type TSourceAdapter, type TSourceFile } from "@posture/connectors";
import { connectors, fileSensitivity, labelSensitivity, scans } from "@posture/db";
import { runScanJob } from "@posture/scans";
import { useTestGateway } from "../../testing";
import { body, client, scannedOrg } from "./harness";

// Sensitivity labels end to end over HTTP: the demo tenant's labels reach the inventory, raise the
// findings of the files they mark, and carry the data-classification controls. A rescan through an
// injected adapter (the demo with its labels changed) stands in for an administrator relabelling.

type TFileRow = { id: string; name: string; label: string | null; sensitivity: string; sharing: string };
type TPage = { rows: TFileRow[]; total: number; metrics: Record<string, number> };
type TFinding = { id: string; severity: string; title: string; ruleId: string; resourceName: string };
type TControl = { id: string; status: string; reason: string };

const gw = useTestGateway();
let org: Awaited<ReturnType<typeof scannedOrg>>;
beforeAll(async () => {
  org = await scannedOrg(gw, { fileCount: 1000 });
});

/** Rescans the org's connector through the demo adapter with each file's label replaced. */
async function rescanRelabelled(relabel: (f: TSourceFile) => string | null) {
  const [connector] = await gw.db.db.select().from(connectors).where(eq(connectors.id, org.connectorId));
  if (!connector) throw new Error("connector missing");
  const [scan] = await gw.db.db
    .insert(scans)
    .values({
      orgId: org.orgId,
      connectorId: connector.id,
      connectorName: connector.displayName,
      trigger: "manual",
    })
    .returning();
  if (!scan) throw new Error("scan insert failed");
  const adapterFor = (): TSourceAdapter => {
    const demo = createSourceAdapter({
      type: connector.type,
      mode: connector.mode,
      connectorId: connector.id,
      credentials: undefined,
      config: connector.config,
    });
    return {
      ...demo,
      // Its files are rewritten here, so it has no change feed: every rescan reads them all.
      changeFeed: undefined,
      files: async function* () {
        for await (const f of demo.files()) yield { ...f, label: relabel(f) };
      },
    };
  };
  const { jobs, runtime, log } = gw.gateway.deps;
  const result = await runScanJob({ db: gw.db.db, jobs, runtime, log, adapterFor }, scan.id, 1);
  expect(result.status).toBe("COMPLETE");
}

async function allFiles(query = ""): Promise<TPage> {
  const first = body<TPage>(await org.c.get(`/api/inventory?type=files&limit=200${query}`));
  const rows = [...first.rows];
  for (let offset = 200; offset < first.total; offset += 200)
    rows.push(
      ...body<TPage>(await org.c.get(`/api/inventory?type=files&limit=200&offset=${offset}${query}`)).rows,
    );
  return { ...first, rows };
}

async function publicFindings(): Promise<TFinding[]> {
  const res = await org.c.get("/api/findings?category=public_exposure&limit=500");
  expect(res.status).toBe(200);
  return body<{ findings: TFinding[] }>(res).findings;
}

async function iso27001(): Promise<Map<string, TControl>> {
  const res = await org.c.post("/api/compliance/reports", { framework: "iso27001" });
  expect(res.status).toBe(200);
  const controls = body<{ report: { controls: TControl[] } }>(res).report.controls;
  return new Map(controls.map((c) => [c.id, c]));
}

describe("sensitivity labels over HTTP (demo tenant)", () => {
  it("shows each file's label in the inventory, in Google's taxonomy, and filters by it", async () => {
    const files = await allFiles();
    expect(files.total).toBe(1000);
    for (const row of files.rows) expect(row).toHaveProperty("label");
    const labels = new Set(files.rows.map((r) => r.label));
    expect(labels).toEqual(new Set([null, "Public", "Internal", "Confidential", "Highly Confidential"]));
    // A label of Confidential and above makes the file highly sensitive, whatever its name.
    for (const row of files.rows.filter(
      (r) => r.label === "Confidential" || r.label === "Highly Confidential",
    ))
      expect(row.sensitivity).toBe("high");
    const labelled = files.rows.filter((r) => r.label !== null).length;
    expect(files.metrics.labelled).toBe(labelled);

    const confidential = await allFiles("&label=confidential");
    expect(confidential.total).toBe(files.rows.filter((r) => r.label === "Confidential").length);
    expect(confidential.rows.every((r) => r.label === "Confidential")).toBe(true);
    // Strict input: a label longer than any label name is refused, not ignored.
    expect((await org.c.get(`/api/inventory?type=files&label=${"x".repeat(201)}`)).status).toBe(400);
  });

  it("shows Microsoft 365 demo files with Purview's default label names", async () => {
    const actor = await gw.createActor({ plan: "business", role: "OWNER" });
    const c = client(gw, actor.cookie);
    const created = await c.post("/api/connectors", {
      type: "microsoft_365",
      displayName: "Demo 365",
      mode: "demo",
      config: { fileCount: 400 },
    });
    expect(created.status).toBe(201);
    const sync = await c.post(`/api/connectors/${(created.body as { id: string }).id}/sync`, undefined);
    expect((sync.body as { status: string }).status).toBe("COMPLETE");
    const rows: TFileRow[] = [];
    for (let offset = 0; offset < 400; offset += 200)
      rows.push(...body<TPage>(await c.get(`/api/inventory?type=files&limit=200&offset=${offset}`)).rows);
    expect(rows).toHaveLength(400);
    expect(new Set(rows.map((r) => r.label))).toEqual(
      new Set([null, "Public", "General", "Confidential", "Highly Confidential"]),
    );
  });

  it("rates a labelled file's public link above the same file's without the label", async () => {
    // Every file labelled Confidential (the demo's own labels mark too few public files with
    // ordinary names for a test on a random seed): read-only links on ordinary names turn CRITICAL.
    await rescanRelabelled(() => "Confidential");
    const before = await publicFindings();
    const labelled = before.filter(
      (f) => f.title === "Confidential file shared with anyone who has the link",
    );
    expect(labelled.length).toBeGreaterThan(5);
    for (const f of labelled) expect(f.severity).toBe("CRITICAL");

    // The same files, labels removed: their findings (same ids) drop to HIGH.
    await rescanRelabelled(() => null);
    const after = new Map((await publicFindings()).map((f) => [f.id, f]));
    for (const f of labelled)
      expect({ name: f.resourceName, ...after.get(f.id) }).toMatchObject({
        name: f.resourceName,
        severity: "HIGH",
        title: "File shared with anyone who has the link",
      });
    const unlabelled = await allFiles();
    expect(unlabelled.rows.every((r) => r.label === null)).toBe(true);
    expect(unlabelled.metrics.labelled).toBe(0);
  });

  it("flips ISO 27001 A.5.12 and A.5.13 to satisfied once every sensitive file carries a sensitive label", async () => {
    // The demo's own labels: most sensitive files labelled, not all.
    await rescanRelabelled((f) => f.label ?? null);
    const partial = await iso27001();
    for (const id of ["A.5.12", "A.5.13"]) {
      expect(partial.get(id)?.status).toBe("PARTIAL");
      expect(partial.get(id)?.reason).toMatch(/sensitive files carry a label/);
    }
    expect(partial.get("A.8.12")?.reason).toMatch(/Data classification/);

    // Every highly sensitive file labelled Confidential (or kept at its own sensitive label).
    await rescanRelabelled((f) => {
      const own = f.label ?? null;
      if (own !== null && labelSensitivity(own) === "high") return own;
      return fileSensitivity(f.name, own === null ? [] : [own]) === "high" ? "Confidential" : own;
    });
    const satisfied = await iso27001();
    for (const id of ["A.5.12", "A.5.13"]) expect(satisfied.get(id)?.status).toBe("SATISFIED");
    // A.8.12 still has public links and outside shares to answer for, but no longer classification.
    expect(satisfied.get("A.8.12")?.reason).not.toMatch(/Data classification/);

    const dashboard = body<{ frameworks: Array<{ id: string; satisfied: number }> }>(
      await org.c.get("/api/compliance/dashboard"),
    );
    const iso = dashboard.frameworks.find((f) => f.id === "iso27001");
    expect(iso?.satisfied).toBe([...satisfied.values()].filter((c) => c.status === "SATISFIED").length);
  });

  it("re-rates a sensitive file's outside share on a trusted-domain change exactly as the next scan does", async () => {
    const relabel = (f: TSourceFile) =>
      fileSensitivity(f.name, f.label ? [f.label] : []) === "high" ? "Highly Confidential" : null;
    await rescanRelabelled(relabel);
    type TItem = { sharingType: string; target: string; sensitivity: string; severity: string };
    const items = body<{ rows: TItem[] }>(
      await org.c.get("/api/sharing/items?type=external_user&limit=500"),
    ).rows;
    const sensitive = items.filter((i) => i.sensitivity === "high" && i.target.includes("@"));
    expect(sensitive.length).toBeGreaterThan(0);
    // The busiest outside domain among highly sensitive files' shares.
    const tally = new Map<string, number>();
    for (const i of sensitive) {
      const d = i.target.split("@")[1] ?? "";
      tally.set(d, (tally.get(d) ?? 0) + 1);
    }
    const domain = [...tally].sort((a, b) => b[1] - a[1])[0]?.[0] ?? "";
    const shares = async () =>
      new Map(
        body<{ findings: TFinding[] }>(
          await org.c.get("/api/findings?category=external_sharing&limit=500"),
        ).findings.map((f) => [f.id, `${f.severity} ${f.title}`]),
      );
    const before = await shares();
    const added = await org.c.post("/api/sharing/trusted-domains", { domain });
    expect(added.status).toBe(201);
    expect(body<{ rerated: { findings: number } }>(added).rerated.findings).toBeGreaterThan(0);
    const rerated = await shares();
    expect(rerated).not.toEqual(before);
    await rescanRelabelled(relabel);
    expect(await shares()).toEqual(rerated);
  });
});
