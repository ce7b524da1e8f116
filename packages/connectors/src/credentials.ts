import { createPrivateKey } from "node:crypto";
import { AppError } from "@posture/platform";
import { z } from "zod";
import { type TGoogleCredentials } from "./google/auth";
import { type TGithubAppCredentials } from "./github/auth";
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

/**
 * A GitHub App installation (docs/sources/github.md): the app's id, the installation's id on the
 * organization, and the app's private key as GitHub hands it out.
 */
export const ZGithubCredentials = z.object({
  appId: z.union([
    z.number().int().positive(),
    z.string().regex(/^[0-9]{1,20}$/, "must be the app's numeric id"),
  ]),
  installationId: z.union([
    z.number().int().positive(),
    z.string().regex(/^[0-9]{1,20}$/, "must be the installation's numeric id"),
  ]),
  privateKey: z.string().max(16_384).refine(isRsaPrivateKey, "must be a PEM-encoded RSA private key"),
});

export type TConnectorCredentials = TGoogleCredentials | TMicrosoftCredentials | TGithubAppCredentials;

/**
 * Google's service-account key file as downloaded (`{"type": "service_account", "client_email",
 * "private_key", …}`, snake_case) is accepted as is: its two fields the scan needs are read under
 * their camelCase names. The impersonated admin is not in the key file, so `subject` (or
 * `delegated_subject` beside the file's fields) is still required.
 */
export function normaliseGoogleKeyFile(credentials: unknown): unknown {
  if (typeof credentials !== "object" || credentials === null || Array.isArray(credentials))
    return credentials;
  const c = credentials as Record<string, unknown>;
  if (!("client_email" in c) && !("private_key" in c)) return credentials;
  const { client_email, private_key, delegated_subject, subject, clientEmail, privateKey } = c;
  return {
    clientEmail: clientEmail ?? client_email,
    privateKey: privateKey ?? private_key,
    subject: subject ?? delegated_subject,
  };
}

// Both Google shapes are tried by key so that the error names the fields of the shape the caller meant.
function googleSchema(credentials: unknown) {
  const looksLikeToken =
    typeof credentials === "object" && credentials !== null && "accessToken" in credentials;
  return looksLikeToken ? ZGoogleAccessTokenCredentials : ZGoogleServiceAccountCredentials;
}

/** Validates credentials for a connector type; invalid ones are a 400 naming each bad field. */
export function parseConnectorCredentials(type: "google_workspace", credentials: unknown): TGoogleCredentials;
export function parseConnectorCredentials(type: "microsoft_365", credentials: unknown): TMicrosoftCredentials;
export function parseConnectorCredentials(type: "github", credentials: unknown): TGithubAppCredentials;
export function parseConnectorCredentials(type: TConnectorType, credentials: unknown): TConnectorCredentials;
export function parseConnectorCredentials(type: TConnectorType, credentials: unknown): TConnectorCredentials {
  const input = type === "google_workspace" ? normaliseGoogleKeyFile(credentials) : credentials;
  const schema =
    type === "google_workspace"
      ? googleSchema(input)
      : type === "github"
        ? ZGithubCredentials
        : ZMicrosoft365Credentials;
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new AppError("invalid_input", `Invalid ${type} credentials`, {
    details: parsed.error.issues.map((issue) => ({
      path: ["credentials", ...issue.path.map(String)].join("."),
      message: issue.message,
    })),
  });
}
