import { execFile, execFileSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { seedWorkspace, TYPICAL_FINDINGS } from "@posture/compliance/testing";
import {
  evidenceSignerOf,
  publishedJwk,
  signCompactJws,
  verifyCompactJws,
  type TJwks,
} from "@posture/platform";
import { type TTestGateway, useTestGateway } from "../../testing";
import { freshIp } from "../helpers";
import { fetchBytes, tmpFile } from "./helpers";

// What `pnpm cli` runs: the CLI's bundle on plain Node, built (when stale) by the integration
// project's global set-up (tooling/test/app-bundles.mjs). evidence:verify needs no database.
const CLI = fileURLToPath(new URL("../../../../cli/dist/main.js", import.meta.url));

// The service key (PKCS#8 PEM, as an operator sets EVIDENCE_SIGNING_KEY) and a retired key whose
// public half is still published (EVIDENCE_SIGNING_KEYS_PREVIOUS).
const current = generateKeyPairSync("ed25519").privateKey;
const retired = generateKeyPairSync("ed25519").privateKey;
const currentJwk = publishedJwk(current);
const retiredJwk = publishedJwk(retired);

const gw = useTestGateway({
  env: {
    EVIDENCE_SIGNING_KEY: current.export({ format: "pem", type: "pkcs8" }).toString(),
    EVIDENCE_SIGNING_KEYS_PREVIOUS: JSON.stringify([{ kty: "OKP", crv: "Ed25519", x: retiredJwk.x }]),
  },
});
type TActor = Awaited<ReturnType<TTestGateway["createActor"]>>;
let acme: TActor;
let zipFile = "";
let jwksFile = "";

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  // No DATABASE_URL, no DATA_DIR, no key: the check runs where the auditor is.
  const { DATABASE_URL: _db, DATA_DIR: _dir, ENCRYPTION_KEY: _key, ...inherited } = process.env;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--enable-source-maps", CLI, "evidence:verify", ...args, "--json"],
      { env: inherited, timeout: 60_000, maxBuffer: 1 << 24 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

async function verify(file: string, jwks?: string) {
  const run = await cli(jwks ? [file, "--jwks", jwks] : [file]);
  return { code: run.code, stderr: run.stderr, result: JSON.parse(run.stdout) as Record<string, unknown> };
}

/** The package unpacked into a folder, changed by `edit`, and zipped again (as an editor would). */
function repack(edit: (dir: string) => void): string {
  const dir = mkdtempSync(join(tmpdir(), "evidence-edit-"));
  execFileSync("unzip", ["-q", zipFile, "-d", dir]);
  edit(dir);
  const out = join(mkdtempSync(join(tmpdir(), "evidence-out-")), "edited.zip");
  execFileSync("zip", ["-q", "-r", "-X", out, "."], { cwd: dir });
  return out;
}

async function waitReady(jobId: string) {
  for (let i = 0; i < 200; i++) {
    const res = await gw.request("GET", `/api/compliance/evidence/${jobId}`, {
      key: acme.key,
      ip: freshIp(),
      headers: { accept: "application/json" },
    });
    const status = (res.body as { status?: string }).status;
    if (status && status !== "PENDING") return res;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("evidence job did not finish");
}

beforeAll(async () => {
  acme = await gw.createActor({ plan: "business" });
  await seedWorkspace(gw.db.db, {
    orgId: acme.orgId,
    users: 8,
    files: 40,
    scores: [70],
    findings: TYPICAL_FINDINGS,
    apps: 2,
    auditEntries: 3,
  });
  const res = await gw.request("POST", "/api/compliance/evidence/generate", {
    key: acme.key,
    body: { framework: "soc2" },
    ip: freshIp(),
  });
  expect(res.status).toBe(202);
  const jobId = (res.body as { jobId: string }).jobId;
  expect((await waitReady(jobId)).body).toMatchObject({ status: "READY" });
  const zip = await fetchBytes(gw, `/api/compliance/evidence/${jobId}`, { key: acme.key });
  expect(zip.status).toBe(200);
  zipFile = tmpFile("evidence.zip", zip.bytes);
  const keys = await fetchBytes(gw, "/api/compliance/evidence/keys");
  jwksFile = tmpFile("jwks.json", keys.bytes);
});

describe("GET /api/compliance/evidence/keys", () => {
  it("is public and serves the current key, then the retired one, as a JWKS", async () => {
    const res = await gw.request("GET", "/api/compliance/evidence/keys", { ip: freshIp() });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ keys: [currentJwk, retiredJwk] });
    expect(currentJwk).toEqual({
      kty: "OKP",
      crv: "Ed25519",
      x: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      kid: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      use: "sig",
      alg: "EdDSA",
    });
  });
});

describe("a signed evidence package", () => {
  it("carries manifest.jws over manifest.json's bytes, with the audit chain's head, kid in the header", () => {
    const manifestBytes = execFileSync("unzip", ["-p", zipFile, "manifest.json"]);
    const jws = execFileSync("unzip", ["-p", zipFile, "manifest.jws"]).toString();
    const check = verifyCompactJws(jws, { keys: [currentJwk] });
    expect(check.ok).toBe(true);
    if (!check.ok) return;
    expect(check.header).toEqual({
      alg: "EdDSA",
      kid: currentJwk.kid,
      typ: "posture-evidence-manifest+jws",
      cty: "application/json",
    });
    expect(check.payload.equals(manifestBytes)).toBe(true);
    const manifest = JSON.parse(manifestBytes.toString()) as {
      auditChain: { verified: boolean; lastSeq: number; lastHash: string };
      signature: { kid: string };
      files: Array<{ path: string }>;
    };
    const auditCheck = JSON.parse(
      execFileSync("unzip", ["-p", zipFile, "evidence/audit-log-verification.json"]).toString(),
    ) as { verified: boolean; lastSeq: number; lastHash: string; entries: number };
    expect(manifest.auditChain).toEqual({
      verified: true,
      entries: auditCheck.entries,
      lastSeq: auditCheck.lastSeq,
      lastHash: auditCheck.lastHash,
    });
    expect(manifest.auditChain.lastHash).toMatch(/^[0-9a-f]{64}$/);
    expect(manifest.signature).toMatchObject({ alg: "EdDSA", kid: currentJwk.kid, file: "manifest.jws" });
    expect(manifest.files.map((f) => f.path)).toContain("jwks.json");
    expect(JSON.parse(execFileSync("unzip", ["-p", zipFile, "jwks.json"]).toString())).toEqual({
      keys: [currentJwk, retiredJwk],
    });
  });

  it("verifies offline against the service's JWKS, from a file and from the URL", async () => {
    const fromFile = await verify(zipFile, jwksFile);
    expect(fromFile.code, fromFile.stderr).toBe(0);
    const listed = (fromFile.result.files as { listed: number }).listed;
    expect(fromFile.result).toMatchObject({
      ok: true,
      problems: [],
      signature: { ok: true, kid: currentJwk.kid, keySource: "jwks", trusted: true, reason: null },
      files: { listed, verified: listed, mismatched: [], missing: [], unlisted: [] },
      package: { framework: "soc2", organization: { id: acme.orgId } },
    });
    // Every entry but manifest.json and manifest.jws is listed and verified.
    const entries = execFileSync("unzip", ["-Z1", zipFile]).toString().trim().split("\n");
    expect(listed).toBe(entries.length - 2);

    const fromUrl = await verify(zipFile, `${gw.url}/api/compliance/evidence/keys`);
    expect(fromUrl.code, fromUrl.stderr).toBe(0);
    expect(fromUrl.result).toMatchObject({ ok: true, signature: { trusted: true } });
  });

  it("without --jwks checks against the package's own keys and says the key is not trusted", async () => {
    const run = await verify(zipFile);
    expect(run.code).toBe(0);
    expect(run.result).toMatchObject({
      ok: true,
      signature: { ok: true, kid: currentJwk.kid, keySource: "package", trusted: false },
    });
  });

  it("refuses a package with one byte of one file changed", async () => {
    const edited = repack((dir) => {
      const file = join(dir, "evidence/findings.csv");
      const bytes = readFileSync(file);
      bytes[bytes.length - 2] = bytes[bytes.length - 2] === 0x41 ? 0x42 : 0x41;
      writeFileSync(file, bytes);
    });
    for (const jwks of [jwksFile, undefined]) {
      const run = await verify(edited, jwks);
      expect(run.code).toBe(3);
      expect(run.result).toMatchObject({
        ok: false,
        signature: { ok: true },
        files: { mismatched: ["evidence/findings.csv"], missing: [], unlisted: [] },
        problems: ["changed: evidence/findings.csv"],
      });
      expect(JSON.parse(run.stderr.trim())).toMatchObject({ error: "evidence_not_verified" });
    }
  });

  it("refuses a byte flipped in the archive itself", async () => {
    const bytes = readFileSync(zipFile);
    // Inside the first entry's compressed data (controls.csv): it no longer inflates to its hash.
    bytes.writeUInt8(bytes.readUInt8(100) ^ 0xff, 100);
    const run = await verify(tmpFile("flipped.zip", bytes), jwksFile);
    expect(run.code).toBe(3);
    expect(run.result).toMatchObject({
      ok: false,
      signature: { ok: true },
      files: { mismatched: ["controls.csv"], missing: [], unlisted: [] },
    });
  });

  it("refuses a changed manifest, and a file rehashed into it", async () => {
    const edited = repack((dir) => {
      const file = join(dir, "evidence/findings.csv");
      writeFileSync(file, "id\n");
      const manifestFile = join(dir, "manifest.json");
      const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as {
        files: Array<{ path: string; size: number; sha256: string }>;
      };
      const entry = manifest.files.find((f) => f.path === "evidence/findings.csv");
      if (!entry) throw new Error("findings.csv not in the manifest");
      entry.size = 3;
      entry.sha256 = "984a644ec3b56d32b0404777e1eb73390c4b0742a6a0e183f07861056b6746de";
      writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
    });
    const run = await verify(edited, jwksFile);
    expect(run.code).toBe(3);
    expect(run.result).toMatchObject({
      ok: false,
      signature: { ok: true },
      files: { mismatched: ["evidence/findings.csv"] },
    });
    expect(run.result.problems).toEqual([
      "manifest.json is not the manifest that was signed",
      "changed: evidence/findings.csv",
    ]);
  });

  it("refuses a package re-signed with another key against the service's JWKS", async () => {
    const forger = evidenceSignerOf(generateKeyPairSync("ed25519").privateKey);
    const edited = repack((dir) => {
      writeFileSync(join(dir, "evidence/findings.csv"), "id\n");
      const manifestFile = join(dir, "manifest.json");
      const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as {
        files: Array<{ path: string; size: number; sha256: string }>;
      };
      for (const f of manifest.files) {
        if (f.path === "evidence/findings.csv") {
          f.size = 3;
          f.sha256 = "984a644ec3b56d32b0404777e1eb73390c4b0742a6a0e183f07861056b6746de";
        }
      }
      const jwks = `${JSON.stringify(forger.jwks, null, 2)}\n`;
      writeFileSync(join(dir, "jwks.json"), jwks);
      for (const f of manifest.files) {
        if (f.path === "jwks.json") {
          f.size = Buffer.byteLength(jwks);
          f.sha256 = execFileSync("sha256sum", [join(dir, "jwks.json")])
            .toString()
            .slice(0, 64);
        }
      }
      const bytes = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
      writeFileSync(manifestFile, bytes);
      writeFileSync(join(dir, "manifest.jws"), signCompactJws(forger, bytes));
    });
    const trusted = await verify(edited, jwksFile);
    expect(trusted.code).toBe(3);
    expect(trusted.result).toMatchObject({
      ok: false,
      signature: { ok: false, kid: forger.kid, keySource: "jwks", trusted: false },
      problems: [`signature: no trusted key with kid ${forger.kid}`],
    });
    // Against its own keys alone the forgery is consistent: why an auditor passes --jwks.
    const own = await verify(edited);
    expect(own.result).toMatchObject({ ok: true, signature: { keySource: "package", trusted: false } });
  });

  it("verifies a package signed with a retired key that is still published", () => {
    const jwks = JSON.parse(readFileSync(jwksFile, "utf8")) as TJwks;
    const payload = Buffer.from('{"files":[]}\n');
    const old = verifyCompactJws(signCompactJws(evidenceSignerOf(retired), payload), jwks);
    expect(old).toMatchObject({ ok: true, kid: retiredJwk.kid });
  });
});
