import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { seedWorkspace, TYPICAL_FINDINGS } from "@posture/compliance/testing";
import { evidenceChunks, evidenceJobs } from "@posture/db";
import { eq } from "drizzle-orm";
import { type TTestGateway, useTestGateway } from "../../testing";
import { errorCode, freshIp } from "../helpers";
import { fetchBytes, tmpFile } from "./helpers";

const gw = useTestGateway();
type TActor = Awaited<ReturnType<TTestGateway["createActor"]>>;
let acme: TActor;
let globex: TActor;

beforeAll(async () => {
  acme = await gw.createActor({ plan: "business" });
  globex = await gw.createActor({ plan: "enterprise" });
  await seedWorkspace(gw.db.db, {
    orgId: acme.orgId,
    users: 30,
    files: 2500,
    scores: [60, 62],
    findings: TYPICAL_FINDINGS,
    apps: 3,
    auditEntries: 4,
    incidents: [{ status: "RESOLVED", withPostMortem: false }],
  });
  // Another organization's data, with markers that must never appear in Acme's package.
  await seedWorkspace(gw.db.db, {
    orgId: globex.orgId,
    users: 5,
    files: 300,
    findings: [
      {
        ruleId: "public_link",
        category: "public_exposure",
        severity: "HIGH",
        title: "GLOBEX-SECRET finding",
        resourceName: "globex-only.xlsx",
      },
    ],
    auditEntries: 2,
  });
});

async function generate(a: TActor, framework: string) {
  return gw.request("POST", "/api/compliance/evidence/generate", {
    key: a.key,
    body: { framework },
    ip: freshIp(),
  });
}

async function waitReady(a: TActor, jobId: string) {
  for (let i = 0; i < 200; i++) {
    const res = await gw.request("GET", `/api/compliance/evidence/${jobId}`, {
      key: a.key,
      ip: freshIp(),
      headers: { accept: "application/json" },
    });
    const status = (res.body as { status?: string }).status;
    if (status && status !== "PENDING") return res;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("evidence job did not finish");
}

const unzipList = (file: string) => execFileSync("unzip", ["-Z1", file]).toString().trim().split("\n");
const unzipRead = (file: string, entry: string) =>
  execFileSync("unzip", ["-p", file, entry], { maxBuffer: 1 << 28 });

describe("evidence packages", () => {
  let jobId = "";
  let zipFile = "";

  it("202 PENDING, then READY with counts, then the ZIP", async () => {
    const res = await generate(acme, "soc2");
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: "PENDING", jobId: expect.any(String) });
    jobId = (res.body as { jobId: string }).jobId;
    const ready = await waitReady(acme, jobId);
    expect(ready.body).toMatchObject({ status: "READY" });
    // A plain GET of a READY job is the ZIP; the JSON shape is asked for with Accept.
    const plain = await fetchBytes(gw, `/api/compliance/evidence/${jobId}`, { key: acme.key });
    expect(plain.headers.get("content-type")).toBe("application/zip");
    const asJson = await fetchBytes(gw, `/api/compliance/evidence/${jobId}`, {
      key: acme.key,
      headers: { accept: "application/json" },
    });
    expect(asJson.status).toBe(200);
    expect(asJson.json).toMatchObject({
      jobId,
      status: "READY",
      controlCount: 16,
      fileCount: expect.any(Number),
      sizeBytes: expect.any(Number),
    });
    const zip = await fetchBytes(gw, `/api/compliance/evidence/${jobId}`, {
      key: acme.key,
      headers: { accept: "application/zip, application/json;q=0.5" },
    });
    expect(zip.status).toBe(200);
    expect(zip.headers.get("content-disposition")).toMatch(/^attachment; filename="evidence-soc2-/);
    expect(zip.bytes.length).toBe((asJson.json as { sizeBytes: number }).sizeBytes);
    zipFile = tmpFile("evidence.zip", zip.bytes);
    execFileSync("unzip", ["-tq", zipFile]);
  });

  it("holds a manifest whose sizes and SHA-256 match every file, and safe entry names", () => {
    const entries = unzipList(zipFile);
    for (const name of [
      "manifest.json",
      "index.html",
      "controls.csv",
      "reports/gap-report.pdf",
      "evidence/audit-log.csv",
      "evidence/audit-log-verification.json",
      "evidence/configuration/mfa-coverage.csv",
      "evidence/configuration/admins.csv",
      "evidence/configuration/external-shares.csv",
      "evidence/configuration/oauth-apps.csv",
      "evidence/findings.csv",
      "controls/CC6.1.json",
    ]) {
      expect(entries).toContain(name);
    }
    for (const e of entries) {
      expect(e).toMatch(/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/);
      expect(e.split("/")).not.toContain("..");
    }
    const manifest = JSON.parse(unzipRead(zipFile, "manifest.json").toString()) as {
      framework: { id: string };
      organization: { id: string };
      period: { days: number };
      generatedAt: string;
      files: Array<{ path: string; size: number; sha256: string }>;
      controls: Array<{ id: string; status: string; files: string[] }>;
    };
    expect(manifest).toMatchObject({
      framework: { id: "soc2" },
      organization: { id: acme.orgId },
      period: { days: 90 },
    });
    expect(manifest.files.length).toBe(entries.length - 2);
    for (const f of manifest.files) {
      const bytes = unzipRead(zipFile, f.path);
      expect(bytes.length, f.path).toBe(f.size);
      expect(createHash("sha256").update(bytes).digest("hex"), f.path).toBe(f.sha256);
    }
    const cc61 = manifest.controls.find((c) => c.id === "CC6.1");
    expect(cc61?.files).toEqual(
      expect.arrayContaining([
        "controls/CC6.1.json",
        "evidence/configuration/mfa-coverage.csv",
        "evidence/findings.csv",
      ]),
    );
    for (const c of manifest.controls) for (const f of c.files) expect(entries).toContain(f);
    // Times are ISO 8601 UTC, as the findings export writes them, not PostgreSQL's text (issue 33).
    const findingsCsv = unzipRead(zipFile, "evidence/findings.csv").toString().trim().split("\n");
    const header = (findingsCsv[0] ?? "").split(",");
    const detected = header.indexOf("detected_at");
    for (const line of findingsCsv.slice(1))
      expect(line.split(",").at(detected - header.length)).toMatch(
        /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/,
      );
    const audit = unzipRead(zipFile, "evidence/audit-log.csv").toString().trim().split("\n");
    for (const line of audit.slice(1))
      expect(line.split(",")[1]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it("verifies the audit chain and carries only this organization's data", () => {
    const check = JSON.parse(unzipRead(zipFile, "evidence/audit-log-verification.json").toString()) as {
      verified: boolean;
      entries: number;
    };
    expect(check.verified).toBe(true);
    expect(check.entries).toBeGreaterThanOrEqual(4);
    const all = unzipList(zipFile)
      .filter((e) => !e.endsWith(".pdf"))
      .map((e) => unzipRead(zipFile, e).toString())
      .join("\n");
    expect(all).toContain("payroll-2026.xlsx");
    expect(all).not.toContain("GLOBEX-SECRET");
    expect(all).not.toContain("globex-only.xlsx");
    expect(all).not.toContain(globex.orgId);
    const pdf = tmpFile("gap.pdf", unzipRead(zipFile, "reports/gap-report.pdf"));
    execFileSync("qpdf", ["--check", pdf]);
    const html = unzipRead(zipFile, "index.html").toString();
    expect(html).toContain("Hash chain verified");
    expect(html).toContain('href="controls/CC6.1.json"');
  });

  it("another organization's job is a 404, never a 403", async () => {
    const res = await gw.request("GET", `/api/compliance/evidence/${jobId}`, {
      key: globex.key,
      ip: freshIp(),
    });
    expect(res.status).toBe(404);
    expect(errorCode(res)).toBe("not_found");
    expect(
      (await gw.request("GET", "/api/compliance/evidence/evj_nope", { key: acme.key, ip: freshIp() })).status,
    ).toBe(404);
  });

  it("409 while a package for the same framework is still PENDING", async () => {
    const [pending] = await gw.db.db
      .insert(evidenceJobs)
      .values({ orgId: globex.orgId, framework: "gdpr", periodDays: 90 })
      .returning();
    const res = await generate(globex, "gdpr");
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: "conflict", jobId: pending?.id });
    expect((await generate(acme, "pci")).status).toBe(400);
  });

  it("FAILED carries a reason; an expired package is 410 and its bytes are purged", async () => {
    const [failed] = await gw.db.db
      .insert(evidenceJobs)
      .values({
        orgId: acme.orgId,
        framework: "hipaa",
        periodDays: 90,
        status: "FAILED",
        error: "storage unavailable",
      })
      .returning();
    const f = await gw.request("GET", `/api/compliance/evidence/${failed?.id}`, {
      key: acme.key,
      ip: freshIp(),
    });
    expect(f.status).toBe(200);
    expect(f.body).toMatchObject({ status: "FAILED", reason: "storage unavailable" });

    await gw.db.db
      .update(evidenceJobs)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(evidenceJobs.id, jobId));
    const gone = await gw.request("GET", `/api/compliance/evidence/${jobId}`, {
      key: acme.key,
      ip: freshIp(),
    });
    expect(gone.status).toBe(410);
    expect(errorCode(gone)).toBe("expired");
    await gw.gateway.deps.jobs.runAndWait(
      "compliance.evidence.purge",
      {},
      { jobId: `purge-${Date.now()}`, timeoutMs: 10_000 },
    );
    expect(await gw.db.db.select().from(evidenceChunks).where(eq(evidenceChunks.jobId, jobId))).toHaveLength(
      0,
    );
  });

  it("needs business: 402 for team", async () => {
    const team = await gw.createActor({ plan: "team" });
    const res = await gw.request("POST", "/api/compliance/evidence/generate", {
      cookie: team.cookie,
      body: { framework: "soc2" },
      ip: freshIp(),
    });
    expect(res.status).toBe(402);
  });
});
