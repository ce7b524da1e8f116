import { readFile } from "node:fs/promises";
import { verifyEvidencePackage, type TEvidenceVerification } from "@posture/compliance/verify";
import type { TJwks } from "@posture/platform";

/**
 * `evidence:verify FILE [--jwks FILE|URL]`: checks an evidence package without the service and
 * without a database. With --jwks the manifest's signature must verify with a key of that JWKS
 * (the service's GET /api/compliance/evidence/keys, saved or fetched): the auditor trusts a key
 * from outside the package. Without it the package's own jwks.json is used, which proves the
 * files are the ones signed but not who signed them (`signature.trusted: false`).
 */
export async function evidenceVerify(
  file: string,
  jwksSource: string | undefined,
): Promise<TEvidenceVerification & { file: string; jwks: string | null }> {
  const zip = await readFile(file);
  let trusted: TJwks | undefined;
  if (jwksSource) {
    const text = /^https?:\/\//i.test(jwksSource)
      ? await fetchJwks(jwksSource)
      : await readFile(jwksSource, "utf8");
    try {
      trusted = JSON.parse(text) as TJwks;
    } catch {
      throw new Error(`--jwks ${jwksSource} is not JSON`);
    }
    if (!Array.isArray(trusted.keys)) throw new Error(`--jwks ${jwksSource} is not a JWKS ({keys: [...]})`);
  }
  return { file, jwks: jwksSource ?? null, ...verifyEvidencePackage(zip, trusted ? { trusted } : {}) };
}

async function fetchJwks(url: string): Promise<string> {
  const res = await fetch(url, {
    headers: { accept: "application/json" },
    signal: AbortSignal.timeout(15_000),
  });
  if (!res.ok) throw new Error(`--jwks ${url} answered ${res.status}`);
  return res.text();
}
