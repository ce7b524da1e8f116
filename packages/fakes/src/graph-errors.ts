import { randomBytes } from "node:crypto";
import type { TFakeResponse } from "./fake-server";

// Microsoft Graph's error answers, as its fakes (fake-graph.ts, fake-graph-settings.ts) send them.

export const graphError = (status: number, code: string, message: string): TFakeResponse => ({
  status,
  body: {
    error: {
      code,
      message,
      innerError: {
        date: new Date().toISOString(),
        "request-id": randomBytes(8).toString("hex"),
        "client-request-id": randomBytes(8).toString("hex"),
      },
    },
  },
});

/** The app holds none of the permissions the path accepts. */
export const graphDenied = () =>
  graphError(403, "Authorization_RequestDenied", "Insufficient privileges to complete the operation.");

/** A premium (Entra ID P1/P2) feature asked of a tenant without the licence. */
export const graphNotPremium = () =>
  graphError(
    403,
    "Authentication_RequestFromNonPremiumTenantOrB2CTenant",
    "Neither tenant is B2C or tenant doesn't have premium license",
  );

/** The identity platform's token endpoint refusing a grant (`AADSTS…` in the description). */
export const oauthError = (status: number, error: string, description: string): TFakeResponse => ({
  status,
  body: { error, error_description: description, error_codes: [], timestamp: new Date().toISOString() },
});
