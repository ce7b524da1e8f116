import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { parseConnectorCredentials } from "./credentials";

const pem = generateKeyPairSync("rsa", { modulusLength: 2048 })
  .privateKey.export({ type: "pkcs8", format: "pem" })
  .toString();

describe("Google service-account key files", () => {
  it("accepts the key file as Google issues it (snake_case), with the admin to impersonate", () => {
    const keyFile = {
      type: "service_account",
      project_id: "posture-test",
      private_key_id: "abc123",
      private_key: pem,
      client_email: "scanner@posture-test.iam.gserviceaccount.com",
      client_id: "1234567890",
      auth_uri: "https://accounts.google.com/o/oauth2/auth",
      token_uri: "https://oauth2.googleapis.com/token",
    };
    expect(parseConnectorCredentials("google_workspace", { ...keyFile, subject: "admin@acme.test" })).toEqual(
      {
        clientEmail: keyFile.client_email,
        privateKey: pem,
        subject: "admin@acme.test",
      },
    );
    expect(
      parseConnectorCredentials("google_workspace", { ...keyFile, delegated_subject: "admin@acme.test" }),
    ).toMatchObject({
      subject: "admin@acme.test",
    });
  });

  it("still names the missing fields of a key file", () => {
    expect(() =>
      parseConnectorCredentials("google_workspace", {
        client_email: "x@y.iam.gserviceaccount.com",
        private_key: pem,
      }),
    ).toThrow(
      expect.objectContaining({
        code: "invalid_input",
        extra: expect.objectContaining({
          details: [expect.objectContaining({ path: "credentials.subject" })],
        }),
      }),
    );
  });
});
