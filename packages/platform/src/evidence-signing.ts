import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  hkdfSync,
  sign,
  verify,
  type KeyObject,
} from "node:crypto";

/**
 * The service key that signs evidence manifests: one Ed25519 key pair for the whole service,
 * never an organization's. A manifest is signed as a compact JWS (RFC 7515, alg EdDSA per
 * RFC 8037) whose header names the key by its RFC 7638 thumbprint (`kid`); the public keys,
 * the current one and the retired ones still trusted, are published as a JWKS
 * (`GET /api/compliance/evidence/keys`), so an auditor verifies a package without the service.
 */
export type TEd25519Jwk = { kty: "OKP"; crv: "Ed25519"; x: string };
export type TPublishedJwk = TEd25519Jwk & { kid: string; use: "sig"; alg: "EdDSA" };
export type TJwks = { keys: TPublishedJwk[] };

export type TEvidenceSigner = {
  kid: string;
  privateKey: KeyObject;
  /** The current key first, then the previous keys still published. */
  jwks: TJwks;
};

const b64url = (b: Buffer) => b.toString("base64url");

/** RFC 7638 thumbprint of an OKP key: SHA-256 of {"crv","kty","x"} in that order, base64url. */
export function jwkThumbprint(jwk: TEd25519Jwk): string {
  const text = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x });
  return b64url(createHash("sha256").update(text).digest());
}

export function publishedJwk(key: KeyObject): TPublishedJwk {
  const pub = key.type === "public" ? key : createPublicKey(key);
  const raw = pub.export({ format: "jwk" }) as Partial<TEd25519Jwk>;
  if (raw.kty !== "OKP" || raw.crv !== "Ed25519" || typeof raw.x !== "string") {
    throw new Error("the evidence signing key must be an Ed25519 key");
  }
  const jwk: TEd25519Jwk = { kty: "OKP", crv: "Ed25519", x: raw.x };
  return { ...jwk, kid: jwkThumbprint(jwk), use: "sig", alg: "EdDSA" };
}

// PKCS#8 of an Ed25519 private key is this fixed prefix followed by the 32-byte seed (RFC 8410).
const ED25519_PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

/** An Ed25519 key from a 32-byte seed. */
export function ed25519FromSeed(seed: Buffer): KeyObject {
  if (seed.length !== 32) throw new Error("an Ed25519 seed is 32 bytes");
  return createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: "der", type: "pkcs8" });
}

/** A private key given as PKCS#8 PEM or as a private JWK (JSON with `d`). */
export function parseEvidenceSigningKey(text: string): KeyObject {
  const t = text.trim();
  let key: KeyObject;
  try {
    key = t.startsWith("{")
      ? createPrivateKey({ key: JSON.parse(t) as Record<string, string>, format: "jwk" })
      : createPrivateKey(t.replace(/\\n/g, "\n"));
  } catch (e) {
    throw new Error(
      `EVIDENCE_SIGNING_KEY must be an Ed25519 private key as PKCS#8 PEM or a private JWK: ${(e as Error).message}`,
    );
  }
  if (key.asymmetricKeyType !== "ed25519") throw new Error("EVIDENCE_SIGNING_KEY must be an Ed25519 key");
  return key;
}

/** A new key pair's private half as PKCS#8 PEM (embedded mode keeps it in DATA_DIR). */
export function generateEvidenceSigningKeyPem(): string {
  const { privateKey } = generateKeyPairSync("ed25519");
  return privateKey.export({ format: "pem", type: "pkcs8" }).toString();
}

/** The signing key a server derives from ENCRYPTION_KEY when EVIDENCE_SIGNING_KEY is not given. */
export function deriveEvidenceSigningKey(encryptionKey: Buffer): KeyObject {
  return ed25519FromSeed(
    Buffer.from(hkdfSync("sha256", encryptionKey, Buffer.alloc(0), "posture evidence signing v1", 32)),
  );
}

/**
 * The previous public keys still trusted (EVIDENCE_SIGNING_KEYS_PREVIOUS): a JWKS object or an
 * array of public JWKs (Ed25519). Their kid is recomputed; a given kid that differs is refused.
 */
export function parsePreviousKeys(text: string | undefined): TPublishedJwk[] {
  if (!text?.trim()) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error("EVIDENCE_SIGNING_KEYS_PREVIOUS must be JSON: a JWKS or an array of public JWKs");
  }
  const list = Array.isArray(parsed) ? parsed : (parsed as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(list)) throw new Error("EVIDENCE_SIGNING_KEYS_PREVIOUS must be a JWKS or an array");
  return list.map((k: unknown) => {
    const j = k as Partial<TPublishedJwk>;
    if (j.kty !== "OKP" || j.crv !== "Ed25519" || typeof j.x !== "string") {
      throw new Error("EVIDENCE_SIGNING_KEYS_PREVIOUS holds a key that is not a public Ed25519 JWK");
    }
    const published = publishedJwk(
      createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: j.x }, format: "jwk" }),
    );
    if (j.kid !== undefined && j.kid !== published.kid) {
      throw new Error(`EVIDENCE_SIGNING_KEYS_PREVIOUS: kid ${j.kid} is not the key's RFC 7638 thumbprint`);
    }
    return published;
  });
}

export function evidenceSignerOf(privateKey: KeyObject, previous: TPublishedJwk[] = []): TEvidenceSigner {
  const current = publishedJwk(privateKey);
  const seen = new Set([current.kid]);
  const keys = [current];
  for (const k of previous) {
    if (seen.has(k.kid)) continue;
    seen.add(k.kid);
    keys.push(k);
  }
  return { kid: current.kid, privateKey, jwks: { keys } };
}

// The signer of this process; set once at start (gateway, scheduler), like the audit key.
let processSigner: TEvidenceSigner | null = null;
/**
 * The evidence signing key a process signs with: EVIDENCE_SIGNING_KEY when given; on PostgreSQL
 * (DATABASE_URL) derived from ENCRYPTION_KEY, as every process of a deployment derives the same;
 * embedded, a generated one kept in DATA_DIR/evidence-signing.key beside encryption.key. The
 * gateway, the scheduler and the CLI (whose demo seed builds evidence) all load it this way.
 */
export function loadEvidenceSigner(opts: {
  signingKey: string | undefined;
  previousKeys: string | undefined;
  databaseUrl: string | undefined;
  dataDir: string;
  encryptionKey: Buffer;
}): TEvidenceSigner {
  const previous = parsePreviousKeys(opts.previousKeys);
  if (opts.signingKey) return evidenceSignerOf(parseEvidenceSigningKey(opts.signingKey), previous);
  if (opts.databaseUrl) return evidenceSignerOf(deriveEvidenceSigningKey(opts.encryptionKey), previous);
  mkdirSync(opts.dataDir, { recursive: true });
  const file = join(opts.dataDir, "evidence-signing.key");
  if (!existsSync(file)) writeFileSync(file, generateEvidenceSigningKeyPem(), { mode: 0o600 });
  return evidenceSignerOf(parseEvidenceSigningKey(readFileSync(file, "utf8")), previous);
}

export function setEvidenceSigner(signer: TEvidenceSigner | null): void {
  processSigner = signer;
}
export function evidenceSigner(): TEvidenceSigner | null {
  return processSigner;
}

export const EVIDENCE_JWS_TYPE = "posture-evidence-manifest+jws";

/** A compact JWS (attached payload) over `payload`'s exact bytes, signed with Ed25519. */
export function signCompactJws(signer: TEvidenceSigner, payload: Buffer): string {
  const header = { alg: "EdDSA", kid: signer.kid, typ: EVIDENCE_JWS_TYPE, cty: "application/json" };
  const input = `${b64url(Buffer.from(JSON.stringify(header)))}.${b64url(payload)}`;
  return `${input}.${b64url(sign(null, Buffer.from(input), signer.privateKey))}`;
}

export type TJwsCheck =
  | { ok: true; kid: string; payload: Buffer; header: Record<string, unknown> }
  | { ok: false; kid: string | null; reason: string };

/** Verifies a compact EdDSA JWS against the keys of `jwks` (by the header's kid). */
export function verifyCompactJws(jws: string, jwks: { keys: unknown[] }): TJwsCheck {
  const parts = jws.trim().split(".");
  if (parts.length !== 3) return { ok: false, kid: null, reason: "not a compact JWS" };
  const [h = "", p = "", s = ""] = parts;
  let header: Record<string, unknown>;
  try {
    header = JSON.parse(Buffer.from(h, "base64url").toString("utf8")) as Record<string, unknown>;
  } catch {
    return { ok: false, kid: null, reason: "the JWS header is not JSON" };
  }
  const kid = typeof header.kid === "string" ? header.kid : null;
  if (header.alg !== "EdDSA") return { ok: false, kid, reason: `unsupported alg ${String(header.alg)}` };
  if (Array.isArray(header.crit)) return { ok: false, kid, reason: "unsupported critical header" };
  const jwk = jwks.keys.find((k) => (k as { kid?: unknown }).kid === kid) as Partial<TEd25519Jwk> | undefined;
  if (!kid || !jwk) return { ok: false, kid, reason: `no trusted key with kid ${kid ?? "(none)"}` };
  if (jwk.kty !== "OKP" || jwk.crv !== "Ed25519" || typeof jwk.x !== "string") {
    return { ok: false, kid, reason: "the key is not an Ed25519 JWK" };
  }
  if (jwkThumbprint({ kty: "OKP", crv: "Ed25519", x: jwk.x }) !== kid) {
    return { ok: false, kid, reason: "the key's kid is not its RFC 7638 thumbprint" };
  }
  let good = false;
  try {
    const key = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: jwk.x }, format: "jwk" });
    good = verify(null, Buffer.from(`${h}.${p}`), key, Buffer.from(s, "base64url"));
  } catch {
    good = false;
  }
  if (!good) return { ok: false, kid, reason: "the signature does not verify with that key" };
  return { ok: true, kid, payload: Buffer.from(p, "base64url"), header };
}
