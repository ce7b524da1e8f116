import { generateKeyPairSync } from "node:crypto";
import { AppError } from "@posture/platform";
import { describe, expect, it } from "vitest";
import { parseConnectorCredentials } from "./credentials";
import { createDemoAdapter } from "./demo";
import { createSourceAdapter } from "./factory";

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

function invalidInput(fn: () => unknown): {
  message: string;
  details: Array<{ path: string; message: string }>;
} {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    const appError = error as AppError;
    expect(appError.code).toBe("invalid_input");
    expect(appError.status).toBe(400);
    return {
      message: appError.message,
      details: appError.extra.details as Array<{ path: string; message: string }>,
    };
  }
  throw new Error("expected an invalid_input AppError");
}

const rsaPem = () =>
  generateKeyPairSync("rsa", { modulusLength: 2048 })
    .privateKey.export({ type: "pkcs8", format: "pem" })
    .toString();

describe("createSourceAdapter", () => {
  it("builds the demo adapter seeded by the connector id, with fileCount from config", async () => {
    const adapter = createSourceAdapter({
      type: "google_workspace",
      mode: "demo",
      connectorId: "conn-1",
      credentials: undefined,
      config: { fileCount: 12 },
    });
    const direct = createDemoAdapter({ seed: "conn-1", type: "google_workspace", fileCount: 12 });
    expect(await adapter.workspace()).toEqual(await direct.workspace());
    // Timestamps are relative to "now", so compare identities, not whole records.
    const emails = async (a: typeof adapter) => (await collect(a.users())).map((u) => u.email);
    expect(await emails(adapter)).toEqual(await emails(direct));
    expect((await collect(adapter.files())).map((f) => f.id)).toEqual(
      (await collect(direct.files())).map((f) => f.id),
    );
  });

  it("sizes the demo tenant from config and starts its clock at the connector's creation", async () => {
    const createdAt = new Date("2026-05-04T10:17:00.000Z");
    const make = (revision: number) =>
      createSourceAdapter({
        type: "google_workspace",
        mode: "demo",
        connectorId: "conn-2",
        createdAt,
        credentials: undefined,
        config: { fileCount: 30, userCount: 40, revision },
      });
    const users = await collect(make(0).users());
    expect(users).toHaveLength(40);
    expect(await collect(make(0).files())).toHaveLength(30);
    const times = (await collect(make(0).files())).map((f) => Date.parse(f.modifiedAt));
    expect(Math.max(...times)).toBeLessThanOrEqual(Date.parse("2026-05-04T10:00:00.000Z"));
    // The same tenant, read again: identical, timestamps included.
    expect(await collect(make(2).files())).toEqual(await collect(make(2).files()));
    expect(make(2).changeFeed).toBeDefined();
  });

  it("refuses a demo size out of bounds", () => {
    for (const config of [
      { fileCount: 1_000_001 },
      { fileCount: 0 },
      { userCount: 24 },
      { userCount: 100_001 },
    ]) {
      const { details } = invalidInput(() =>
        createSourceAdapter({
          type: "google_workspace",
          mode: "demo",
          connectorId: "c",
          credentials: undefined,
          config,
        }),
      );
      expect(details.map((d) => d.path)).toEqual([`config.${Object.keys(config)[0] ?? ""}`]);
    }
  });

  it("rejects a demo config with a non-integer fileCount", () => {
    const { details } = invalidInput(() =>
      createSourceAdapter({
        type: "microsoft_365",
        mode: "demo",
        connectorId: "c",
        credentials: undefined,
        config: { fileCount: "many" },
      }),
    );
    expect(details.map((d) => d.path)).toEqual(["config.fileCount"]);
  });

  it("rejects real Google credentials that are missing fields, naming each", () => {
    const { details } = invalidInput(() =>
      createSourceAdapter({
        type: "google_workspace",
        mode: "real",
        connectorId: "c",
        credentials: { clientEmail: "x" },
        config: {},
      }),
    );
    expect(details.map((d) => d.path).sort()).toEqual([
      "credentials.clientEmail",
      "credentials.privateKey",
      "credentials.subject",
    ]);
  });

  it("rejects a service account key that is not an RSA private key", () => {
    const { details } = invalidInput(() =>
      parseConnectorCredentials("google_workspace", {
        clientEmail: "sa@p.iam.gserviceaccount.com",
        privateKey: "-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----",
        subject: "admin@acme.test",
      }),
    );
    expect(details).toEqual([
      { path: "credentials.privateKey", message: "must be a PEM-encoded RSA private key" },
    ]);
  });

  it("rejects an empty Google access token and absent credentials", () => {
    expect(
      invalidInput(() => parseConnectorCredentials("google_workspace", { accessToken: "" })).details[0]?.path,
    ).toBe("credentials.accessToken");
    expect(invalidInput(() => parseConnectorCredentials("microsoft_365", undefined)).details).toHaveLength(1);
  });

  it("rejects a Microsoft tenant id that could escape the token URL path", () => {
    const { details } = invalidInput(() =>
      createSourceAdapter({
        type: "microsoft_365",
        mode: "real",
        connectorId: "c",
        credentials: {
          tenantId: "evil.test/../x",
          clientId: "aaaaaaaa-0000-0000-0000-000000000001",
          clientSecret: "s",
        },
        config: {},
      }),
    );
    expect(details.map((d) => d.path)).toEqual(["credentials.tenantId"]);
  });

  it("rejects a real config with a malformed domain", () => {
    const { details } = invalidInput(() =>
      createSourceAdapter({
        type: "google_workspace",
        mode: "real",
        connectorId: "c",
        credentials: { accessToken: "t" },
        config: { domain: "not a domain" },
      }),
    );
    expect(details.map((d) => d.path)).toEqual(["config.domain"]);
  });

  it("accepts valid credentials of both kinds", () => {
    const google = parseConnectorCredentials("google_workspace", {
      clientEmail: "sa@p.iam.gserviceaccount.com",
      privateKey: rsaPem(),
      subject: "admin@acme.test",
    });
    expect("subject" in google && google.subject).toBe("admin@acme.test");
    const microsoft = parseConnectorCredentials("microsoft_365", {
      tenantId: "contoso.onmicrosoft.com",
      clientId: "aaaaaaaa-0000-0000-0000-000000000001",
      clientSecret: "secret",
    });
    expect(microsoft.tenantId).toBe("contoso.onmicrosoft.com");
  });
});
