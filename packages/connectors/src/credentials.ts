import { createPrivateKey } from "node:crypto";
import { AppError } from "@posture/platform";
import { z } from "zod";
import { type TGoogleCredentials } from "./google/auth";
import { type TMicrosoftCredentials } from "./microsoft/auth";
import { type TConnectorType } from "./types";

function isRsaPrivateKey(pem: string): boolean {
  try {
    return createPrivateKey(pem).asymmetricKeyType === "rsa";
  } catch {
    return false;
  }
}

export const ZGoogleAccessTokenCredentials = z.object({ accessToken: z.string().min(1).max(4096) });

export const ZGoogleServiceAccountCredentials = z.object({
  clientEmail: z.email(),
  privateKey: z.string().max(16_384).refine(isRsaPrivateKey, "must be a PEM-encoded RSA private key"),
  /** The admin the service account impersonates through domain-wide delegation. */
  subject: z.email(),
});

export const ZGoogleWorkspaceCredentials = z.union([
  ZGoogleAccessTokenCredentials,
  ZGoogleServiceAccountCredentials,
]);

export const ZMicrosoft365Credentials = z.object({
  // A tenant GUID or a verified domain; it becomes a path segment of the token URL, so no slashes.
  tenantId: z.union([z.guid(), z.hostname()]),
  clientId: z.guid(),
  clientSecret: z.string().min(1).max(1024),
});

export type TConnectorCredentials = TGoogleCredentials | TMicrosoftCredentials;

// Both Google shapes are tried by key so that the error names the fields of the shape the caller meant.
function googleSchema(credentials: unknown) {
  const looksLikeToken =
    typeof credentials === "object" && credentials !== null && "accessToken" in credentials;
  return looksLikeToken ? ZGoogleAccessTokenCredentials : ZGoogleServiceAccountCredentials;
}

/** Validates credentials for a connector type; invalid ones are a 400 naming each bad field. */
export function parseConnectorCredentials(type: "google_workspace", credentials: unknown): TGoogleCredentials;
export function parseConnectorCredentials(type: "microsoft_365", credentials: unknown): TMicrosoftCredentials;
export function parseConnectorCredentials(type: TConnectorType, credentials: unknown): TConnectorCredentials;
export function parseConnectorCredentials(type: TConnectorType, credentials: unknown): TConnectorCredentials {
  const schema = type === "google_workspace" ? googleSchema(credentials) : ZMicrosoft365Credentials;
  const parsed = schema.safeParse(credentials);
  if (parsed.success) return parsed.data;
  throw new AppError("invalid_input", `Invalid ${type} credentials`, {
    details: parsed.error.issues.map((issue) => ({
      path: ["credentials", ...issue.path.map(String)].join("."),
      message: issue.message,
    })),
  });
}
