import type { TMeta } from "@posture/platform";
import { z } from "zod";

export const getEvidenceKeysMeta = {
  openapi: {
    method: "GET",
    path: "/compliance/evidence/keys",
    tags: ["compliance"],
    summary: "Public keys that sign evidence manifests (JWKS)",
    description:
      "No authentication. The JSON Web Key Set (RFC 7517) of the service keys that sign every evidence package's manifest: the current Ed25519 key first, then the retired keys still trusted. A package's manifest.jws names its key by `kid` (the key's RFC 7638 thumbprint). Give this document to `pnpm cli evidence:verify FILE --jwks FILE|URL` to check a package offline.",
    protect: false,
  },
} satisfies TMeta;

export const ZGetEvidenceKeysInput = z.void();

export const ZEvidenceJwk = z.object({
  kty: z.literal("OKP").describe("Octet key pair (RFC 8037)"),
  crv: z.literal("Ed25519"),
  x: z.string().describe("The public key, base64url"),
  kid: z.string().describe("RFC 7638 JWK thumbprint (SHA-256, base64url)"),
  use: z.literal("sig"),
  alg: z.literal("EdDSA"),
});

export const ZGetEvidenceKeysOutput = z.object({
  keys: z
    .array(ZEvidenceJwk)
    .describe("The current signing key first, then the previous keys still published"),
});
