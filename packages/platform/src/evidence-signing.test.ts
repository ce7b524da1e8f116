import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  ed25519FromSeed,
  evidenceSignerOf,
  jwkThumbprint,
  parseEvidenceSigningKey,
  parsePreviousKeys,
  publishedJwk,
  signCompactJws,
  verifyCompactJws,
} from "./evidence-signing";

describe("evidence signing", () => {
  it("names a key by its RFC 7638 thumbprint (RFC 8037 A.3's example key)", () => {
    const x = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo";
    expect(jwkThumbprint({ kty: "OKP", crv: "Ed25519", x })).toBe(
      "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k",
    );
    // RFC 8037 A.1's private key: its seed gives A.2's public key.
    const key = ed25519FromSeed(Buffer.from("nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A", "base64url"));
    expect(publishedJwk(key)).toEqual({
      kty: "OKP",
      crv: "Ed25519",
      x,
      kid: "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k",
      use: "sig",
      alg: "EdDSA",
    });
  });

  it("signs a compact JWS that verifies with the published key and with no other", () => {
    const signer = evidenceSignerOf(generateKeyPairSync("ed25519").privateKey);
    const other = evidenceSignerOf(generateKeyPairSync("ed25519").privateKey);
    const jws = signCompactJws(signer, Buffer.from("payload"));
    const ok = verifyCompactJws(jws, signer.jwks);
    expect(ok).toMatchObject({ ok: true, kid: signer.kid });
    expect(ok.ok && ok.payload.toString()).toBe("payload");
    expect(verifyCompactJws(jws, other.jwks)).toEqual({
      ok: false,
      kid: signer.kid,
      reason: `no trusted key with kid ${signer.kid}`,
    });
    // The other key published under the signer's kid: the thumbprint gives it away.
    const swapped = { keys: [{ ...other.jwks.keys[0], kid: signer.kid }] };
    expect(verifyCompactJws(jws, swapped)).toMatchObject({
      ok: false,
      reason: "the key's kid is not its RFC 7638 thumbprint",
    });
    const [h, p, s] = jws.split(".");
    const tampered = `${h}.${Buffer.from("payloaD").toString("base64url")}.${s}`;
    expect(p).toBe(Buffer.from("payload").toString("base64url"));
    expect(verifyCompactJws(tampered, signer.jwks)).toMatchObject({
      ok: false,
      reason: "the signature does not verify with that key",
    });
  });

  it("reads the key as PKCS#8 PEM or a private JWK, and previous keys as a JWKS or an array", () => {
    const key = generateKeyPairSync("ed25519").privateKey;
    const pem = key.export({ format: "pem", type: "pkcs8" }).toString();
    const jwk = JSON.stringify(key.export({ format: "jwk" }));
    expect(publishedJwk(parseEvidenceSigningKey(pem))).toEqual(publishedJwk(key));
    expect(publishedJwk(parseEvidenceSigningKey(jwk))).toEqual(publishedJwk(key));
    expect(() =>
      parseEvidenceSigningKey(
        generateKeyPairSync("ec", { namedCurve: "P-256" })
          .privateKey.export({ format: "pem", type: "pkcs8" })
          .toString(),
      ),
    ).toThrow("EVIDENCE_SIGNING_KEY must be an Ed25519 key");
    const pub = publishedJwk(key);
    expect(parsePreviousKeys(JSON.stringify({ keys: [pub] }))).toEqual([pub]);
    expect(parsePreviousKeys(JSON.stringify([{ kty: "OKP", crv: "Ed25519", x: pub.x }]))).toEqual([pub]);
    expect(() => parsePreviousKeys(JSON.stringify([{ ...pub, kid: "wrong" }]))).toThrow(
      "EVIDENCE_SIGNING_KEYS_PREVIOUS: kid wrong is not the key's RFC 7638 thumbprint",
    );
    expect(evidenceSignerOf(key, [pub]).jwks.keys).toEqual([pub]);
  });
});
