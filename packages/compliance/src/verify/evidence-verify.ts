import { createHash } from "node:crypto";
import { verifyCompactJws, type TJwks } from "@posture/platform";
import { zipEntries, zipRead, ZipFormatError, type TZipEntry } from "./zip-reader";

/** The package's signed files: the manifest, its JWS, and the public keys at signing time. */
export const MANIFEST_FILE = "manifest.json";
export const MANIFEST_JWS_FILE = "manifest.jws";
export const PACKAGE_JWKS_FILE = "jwks.json";

type TManifest = {
  framework?: { id?: string; name?: string; version?: string };
  organization?: { id?: string; name?: string };
  generatedAt?: string;
  period?: unknown;
  auditChain?: unknown;
  files?: Array<{ path?: unknown; size?: unknown; sha256?: unknown }>;
};

export type TEvidenceVerification = {
  ok: boolean;
  /** What made `ok` false, one sentence each. */
  problems: string[];
  signature: {
    ok: boolean;
    kid: string | null;
    /**
     * Where the key came from: "jwks" (given with --jwks: a key the auditor trusts) or "package"
     * (the package's own jwks.json: proves the files are the ones signed, not who signed them).
     */
    keySource: "jwks" | "package";
    trusted: boolean;
    reason: string | null;
  };
  files: { listed: number; verified: number; mismatched: string[]; missing: string[]; unlisted: string[] };
  package: {
    framework: string | null;
    organization: { id: string | null; name: string | null };
    generatedAt: string | null;
    period: unknown;
    /** The audit chain's head as the service verified it when it built the package (signed). */
    auditChain: unknown;
  } | null;
};

const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");

function parseJwks(bytes: Buffer): TJwks | null {
  try {
    const j = JSON.parse(bytes.toString("utf8")) as { keys?: unknown };
    return Array.isArray(j.keys) ? (j as TJwks) : null;
  } catch {
    return null;
  }
}

/**
 * Checks an evidence package offline: the manifest's JWS signature (with the keys `trusted`
 * when given, else the package's own jwks.json), that manifest.json is exactly the signed
 * payload, that every file the manifest lists is there with its size and SHA-256, and that the
 * archive holds nothing the manifest does not list.
 */
export function verifyEvidencePackage(zip: Buffer, o: { trusted?: TJwks } = {}): TEvidenceVerification {
  const problems: string[] = [];
  const keySource = o.trusted ? "jwks" : "package";
  const result: TEvidenceVerification = {
    ok: false,
    problems,
    signature: { ok: false, kid: null, keySource, trusted: false, reason: null },
    files: { listed: 0, verified: 0, mismatched: [], missing: [], unlisted: [] },
    package: null,
  };
  let entries: TZipEntry[];
  try {
    entries = zipEntries(zip);
  } catch (e) {
    problems.push(e instanceof ZipFormatError ? e.message : "not a readable ZIP archive");
    return result;
  }
  const byName = new Map<string, TZipEntry>();
  for (const e of entries) {
    // Two entries of one name: which one a reader shows is the reader's choice, so refuse.
    if (byName.has(e.name)) problems.push(`the archive holds ${e.name} twice`);
    byName.set(e.name, e);
  }
  const read = (name: string): Buffer | null => {
    const e = byName.get(name);
    if (!e) return null;
    try {
      return zipRead(zip, e);
    } catch {
      return null;
    }
  };

  const jwsText = read(MANIFEST_JWS_FILE)?.toString("utf8") ?? null;
  const manifestBytes = read(MANIFEST_FILE);
  const packageJwks = read(PACKAGE_JWKS_FILE);
  const keys = o.trusted ?? (packageJwks ? parseJwks(packageJwks) : null);
  if (!jwsText) problems.push(`${MANIFEST_JWS_FILE} is missing: the package is not signed`);
  if (!manifestBytes) problems.push(`${MANIFEST_FILE} is missing or unreadable`);
  if (!keys)
    problems.push(
      o.trusted ? "the JWKS given holds no keys" : `${PACKAGE_JWKS_FILE} is missing or not a JWKS`,
    );

  let manifest: TManifest | null = null;
  if (jwsText && keys) {
    const check = verifyCompactJws(jwsText, keys);
    result.signature.kid = check.kid;
    if (check.ok) {
      result.signature.ok = true;
      result.signature.trusted = keySource === "jwks";
      if (!manifestBytes || !check.payload.equals(manifestBytes)) {
        problems.push(`${MANIFEST_FILE} is not the manifest that was signed`);
      }
      try {
        manifest = JSON.parse(check.payload.toString("utf8")) as TManifest;
      } catch {
        problems.push("the signed manifest is not JSON");
      }
    } else {
      result.signature.reason = check.reason;
      problems.push(`signature: ${check.reason}`);
    }
  }
  if (!manifest) return result;

  result.package = {
    framework: manifest.framework?.id ?? null,
    organization: { id: manifest.organization?.id ?? null, name: manifest.organization?.name ?? null },
    generatedAt: manifest.generatedAt ?? null,
    period: manifest.period ?? null,
    auditChain: manifest.auditChain ?? null,
  };
  const listed = new Set<string>([MANIFEST_FILE, MANIFEST_JWS_FILE]);
  for (const f of manifest.files ?? []) {
    const path = String(f.path);
    listed.add(path);
    result.files.listed++;
    const bytes = read(path);
    if (!bytes) {
      // There but not readable (a damaged entry) is a changed file; absent is a missing one.
      (byName.has(path) ? result.files.mismatched : result.files.missing).push(path);
      continue;
    }
    if (bytes.length === f.size && sha256(bytes) === f.sha256) result.files.verified++;
    else result.files.mismatched.push(path);
  }
  for (const [name, e] of byName) {
    // A folder entry (a zip tool adds them when re-packing) holds no bytes to check.
    const folder = name.endsWith("/") && e.size === 0;
    if (!listed.has(name) && !folder) result.files.unlisted.push(name);
  }
  if (result.files.mismatched.length) problems.push(`changed: ${result.files.mismatched.join(", ")}`);
  if (result.files.missing.length) problems.push(`missing: ${result.files.missing.join(", ")}`);
  if (result.files.unlisted.length) problems.push(`not in the manifest: ${result.files.unlisted.join(", ")}`);
  result.ok = problems.length === 0;
  return result;
}
