import { createHash } from "node:crypto";
import { Readable, Transform } from "node:stream";
import { finished } from "node:stream/promises";
import archiver from "archiver";
import { asc, eq } from "drizzle-orm";
import { connectors, tenantCheckResults, type Db, type TComplianceFramework } from "@posture/db";
import { KIND_RULES, type TEvidenceKind } from "../catalogs";
import type { TFrameworkResult } from "../engine/evaluate";
import { evaluateOrg } from "./evaluation";
import {
  auditCsv,
  externalSharesCsv,
  findingsCsv,
  incidentsJson,
  oauthAppsCsv,
  usersCsv,
  verifyAuditChain,
} from "./evidence-files";
import { csvLine, evidenceSigner, signCompactJws } from "@posture/platform";
import { renderIndexHtml, type TManifestFile } from "./evidence-index-html";
import { ChunkSink } from "./evidence-store";
import { renderGapReport } from "./gap-report-pdf";
import { reportTheme } from "@posture/pdf/org-theme";
import { MANIFEST_FILE, MANIFEST_JWS_FILE, PACKAGE_JWKS_FILE } from "../verify/evidence-verify";

const F = {
  findings: "evidence/findings.csv",
  users: "evidence/configuration/mfa-coverage.csv",
  admins: "evidence/configuration/admins.csv",
  shares: "evidence/configuration/external-shares.csv",
  apps: "evidence/configuration/oauth-apps.csv",
  summary: "evidence/configuration/summary.json",
  tenantChecks: "evidence/configuration/tenant-checks.json",
  audit: "evidence/audit-log.csv",
  auditCheck: "evidence/audit-log-verification.json",
  incidents: "evidence/incidents.json",
  gapReport: "reports/gap-report.pdf",
} as const;

/** The evidence files behind each kind; every rule-backed kind also points at the findings. */
const KIND_FILES: Record<TEvidenceKind, readonly string[]> = {
  mfa: [F.users],
  admin: [F.admins],
  public_link: [F.shares],
  ext_share: [F.shares],
  internal_exposure: [F.summary],
  trusted_domain: [F.shares, F.summary],
  oauth_app: [F.apps],
  dormant: [F.users],
  audit_log: [F.audit, F.auditCheck],
  data_class: [F.summary],
  inventory: [F.summary],
  anomaly: [F.summary],
  incident: [F.incidents],
  awareness: [F.summary],
  posture: [F.findings, F.summary],
  tenant_config: [F.tenantChecks, F.findings],
};

/** Each connector's latest tenant-check results: what was read, against which benchmark recommendation. */
async function tenantChecksJson(db: Db, orgId: string) {
  const rows = await db
    .select({
      connector: connectors.displayName,
      connectorType: connectors.type,
      checkId: tenantCheckResults.checkId,
      benchmark: tenantCheckResults.benchmark,
      status: tenantCheckResults.status,
      observed: tenantCheckResults.observed,
      reason: tenantCheckResults.reason,
      checkedAt: tenantCheckResults.checkedAt,
    })
    .from(tenantCheckResults)
    .innerJoin(connectors, eq(connectors.id, tenantCheckResults.connectorId))
    .where(eq(tenantCheckResults.orgId, orgId))
    .orderBy(asc(connectors.displayName), asc(tenantCheckResults.checkId));
  return rows.map((r) => ({ ...r, checkedAt: r.checkedAt.toISOString() }));
}

/** Entry names come from control ids ("Art. 5(1)(f)", "164.308(a)(1)(ii)(A)"): only [A-Za-z0-9._-], never "..". */
export function safeEntryName(id: string): string {
  const s = id
    .replace(/[^A-Za-z0-9._-]+/g, "_")
    .replace(/\.{2,}/g, "_")
    .replace(/^[._]+|_+$/g, "");
  return s || "control";
}

function controlFiles(result: TFrameworkResult): {
  byControl: Record<string, string[]>;
  paths: Map<string, string>;
} {
  const byControl: Record<string, string[]> = {};
  const paths = new Map<string, string>();
  const used = new Set<string>();
  for (const c of result.controls) {
    let name = safeEntryName(c.id);
    while (used.has(name)) name = `${name}_`;
    used.add(name);
    const own = `controls/${name}.json`;
    paths.set(c.id, own);
    const files = new Set<string>([own]);
    for (const e of c.evidence) {
      if (KIND_RULES[e.kind]) files.add(F.findings);
      for (const f of KIND_FILES[e.kind]) files.add(f);
    }
    byControl[c.id] = [...files];
  }
  return { byControl, paths };
}

export type TBuiltPackage = { fileCount: number; controlCount: number; sizeBytes: number; sha256: string };

/**
 * Builds one organization's evidence package as a ZIP streamed straight into evidence_chunks:
 * large files (findings, shares) are read in batches and hashed as they are compressed, and the
 * manifest, written last, lists every file with its size and SHA-256, maps controls to files,
 * carries the audit chain's head, and is signed with the service key (manifest.jws).
 */
export async function buildEvidencePackage(
  db: Db,
  o: { jobId: string; orgId: string; framework: TComplianceFramework; days: number; now?: Date },
): Promise<TBuiltPackage> {
  const now = o.now ?? new Date();
  const signer = evidenceSigner();
  if (!signer)
    throw new Error("evidence signing key not set: every process sets it at start (setEvidenceSigner)");
  const e = await evaluateOrg(db, { orgId: o.orgId, days: o.days, frameworks: [o.framework], now });
  const result = e.results[0];
  if (!result) throw new Error("framework evaluation missing");
  const from = new Date(e.signals.period.from);
  const map = controlFiles(result);

  const archive = archiver("zip", { zlib: { level: 6 } });
  const sink = new ChunkSink(db, o.jobId);
  archive.pipe(sink);
  // Any archiver or storage failure rejects this, and with it the entry being awaited.
  const failed = new Promise<never>((_, reject) => {
    archive.on("error", reject);
    archive.on("warning", reject);
    sink.on("error", reject);
  });
  failed.catch(() => {});

  const files: TManifestFile[] = [];
  /** Appends one entry and waits until the archiver has consumed it, hashing what went in. */
  const add = async (path: string, content: string | Buffer | AsyncIterable<string>): Promise<void> => {
    const hash = createHash("sha256");
    let size = 0;
    const bytes =
      typeof content === "string" || Buffer.isBuffer(content)
        ? [Buffer.from(content)]
        : (async function* () {
            for await (const part of content) yield Buffer.from(part);
          })();
    // Hashing inside the stream the archiver reads: every byte counted is a byte compressed,
    // and the archiver's back-pressure reaches the database reads.
    const reader = Readable.from(bytes);
    const source = reader.pipe(
      new Transform({
        transform(chunk: Buffer, _enc, cb) {
          hash.update(chunk);
          size += chunk.length;
          cb(null, chunk);
        },
      }),
    );
    // A failed read (the database) fails the entry, hence the archive, hence the build.
    reader.on("error", (err) => source.destroy(err));
    const consumed = new Promise<void>((resolve) => {
      const onEntry = (entry: { name: string }) => {
        if (entry.name !== path) return;
        archive.off("entry", onEntry);
        resolve();
      };
      archive.on("entry", onEntry);
    });
    archive.append(source, { name: path, date: now });
    await Promise.race([consumed, failed]);
    files.push({ path, size, sha256: hash.digest("hex") });
  };

  const json = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;
  await add(
    "controls.csv",
    csvLine(["control_id", "title", "status", "reason", "finding_ids", "evidence_files"]) +
      result.controls
        .map((c) =>
          csvLine([
            c.id,
            c.title,
            c.status,
            c.reason,
            c.findingIds.join(" "),
            (map.byControl[c.id] ?? []).join(" "),
          ]),
        )
        .join(""),
  );
  const findingById = new Map(e.signals.topFindings.map((f) => [f.id, f]));
  for (const c of result.controls) {
    await add(
      map.paths.get(c.id) ?? `controls/${safeEntryName(c.id)}.json`,
      json({
        ...c,
        findings: c.findingIds.flatMap((id) => findingById.get(id) ?? []),
        evidenceFiles: map.byControl[c.id],
      }),
    );
  }
  await add(F.findings, findingsCsv(db, { orgId: o.orgId, from }));
  await add(F.users, usersCsv(db, { orgId: o.orgId, adminsOnly: false }));
  await add(F.admins, usersCsv(db, { orgId: o.orgId, adminsOnly: true }));
  await add(F.shares, externalSharesCsv(db, { orgId: o.orgId }));
  await add(F.apps, oauthAppsCsv(db, { orgId: o.orgId }));
  await add(F.summary, json({ organization: e.org, period: e.signals.period, signals: e.signals }));
  await add(F.tenantChecks, json(await tenantChecksJson(db, o.orgId)));
  const auditCheck = await verifyAuditChain(db, { orgId: o.orgId });
  await add(F.audit, auditCsv(db, { orgId: o.orgId, from }));
  await add(F.auditCheck, json({ ...auditCheck, verifiedAt: now.toISOString() }));
  await add(F.incidents, json(await incidentsJson(db, { orgId: o.orgId, from })));
  await add(F.gapReport, await renderGapReport(e, await reportTheme(db, o.orgId), now));
  const generatedAt = now.toISOString();
  await add(
    "index.html",
    renderIndexHtml({
      orgName: e.org.name,
      result,
      period: e.signals.period,
      generatedAt,
      controlFiles: map.byControl,
      auditCheck,
      files,
    }),
  );
  // The public keys at signing time, so the package checks itself; an auditor also checks the
  // signature against the service's published JWKS (`evidence:verify --jwks`), see docs/compliance.md.
  await add(PACKAGE_JWKS_FILE, json(signer.jwks));
  const manifest = {
    framework: { id: result.framework, name: result.name, version: result.version },
    organization: e.org,
    period: e.signals.period,
    generatedAt,
    summary: {
      controls: result.controls.length,
      satisfied: result.satisfied,
      partial: result.partial,
      gap: result.gap,
    },
    // The audit chain's head as verified above: signed with the manifest, so a later chain that
    // does not extend this head (rows dropped or rewritten) shows against the package.
    auditChain: {
      verified: auditCheck.verified,
      entries: auditCheck.entries,
      lastSeq: auditCheck.lastSeq,
      lastHash: auditCheck.lastHash,
    },
    signature: {
      alg: "EdDSA",
      kid: signer.kid,
      file: MANIFEST_JWS_FILE,
      keys: "/api/compliance/evidence/keys",
    },
    files,
    controls: result.controls.map((c) => ({ id: c.id, status: c.status, files: map.byControl[c.id] ?? [] })),
  };
  // manifest.jws is a compact JWS whose payload is exactly manifest.json's bytes.
  const manifestBytes = Buffer.from(json(manifest));
  archive.append(manifestBytes, { name: MANIFEST_FILE, date: now });
  archive.append(signCompactJws(signer, manifestBytes), { name: MANIFEST_JWS_FILE, date: now });
  await Promise.race([archive.finalize(), failed]);
  await Promise.race([finished(sink), failed]);
  return {
    fileCount: files.length + 2,
    controlCount: result.controls.length,
    sizeBytes: sink.size,
    sha256: sink.sha256,
  };
}
