import { AppError, decryptSecret, type TRuntime } from "@posture/platform";
import { z } from "zod";
import { parseConnectorCredentials } from "./credentials";
import { createDemoAdapter, type TDemoOptions } from "./demo";
import { MIN_USERS } from "./demo/shape";
import { createGoogleWorkspaceAdapter, type TGoogleEndpoints } from "./google/adapter";
import { type THttpOptions } from "./http/client";
import { createMicrosoft365Adapter, type TMicrosoftEndpoints } from "./microsoft/adapter";
import { type TConnectorType, type TSourceAdapter } from "./types";
import { createDemoWriter } from "./demo/write";
import { createGoogleWorkspaceWriter } from "./google/write";
import { createMicrosoft365Writer } from "./microsoft/write";
import type { TDemoOverlayStore, TSourceWriter } from "./write";
import { createGithubAdapter } from "./github/adapter";
import { createGithubDemoAdapter, GITHUB_DEMO_LIMITS } from "./github/demo";
import { createGithubDemoWriter } from "./github/demo-write";
import { githubSourceAdapter } from "./github/source";
import { createGithubWriter } from "./github/write";

const ZDomain = z.string().regex(/^(?=.{1,253}$)([a-z0-9-]{1,63}\.)+[a-z]{2,63}$/i, "must be a domain name");

/** A demo tenant's size bounds: up to a million files, the size the store is benchmarked at. */
export const DEMO_LIMITS = { files: { min: 1, max: 1_000_000 }, users: { min: MIN_USERS, max: 100_000 } };

const ZDemoConfig = z.object({
  fileCount: z.number().int().min(DEMO_LIMITS.files.min).max(DEMO_LIMITS.files.max).optional(),
  userCount: z.number().int().min(DEMO_LIMITS.users.min).max(DEMO_LIMITS.users.max).optional(),
  revision: z.number().int().min(0).optional(),
  /**
   * What the synthetic tenant is generated from (default: the connector's id). Set only by the demo
   * seed, so that a fresh start's history has the same numbers every time (issue 33).
   */
  seed: z.string().min(1).max(200).optional(),
  /**
   * People of the tenant with a given address (and name, else the generated one), by user index: the demo organizations'
   * sign-in users, so that what they see of themselves (awareness) is a person's. Set only by the
   * demo seed, like `seed`.
   */
  people: z
    .array(
      z.object({
        index: z
          .number()
          .int()
          .min(0)
          .max(DEMO_LIMITS.users.min - 1),
        email: z.email(),
        name: z.string().min(1).max(200).optional(),
      }),
    )
    .max(DEMO_LIMITS.users.min)
    .optional(),
});

/** A demo GitHub organization's config (`demo: {repositories?}` is stored as `repositoryCount`). */
const ZGithubDemoConfig = z.object({
  repositoryCount: z
    .number()
    .int()
    .min(GITHUB_DEMO_LIMITS.repositories.min)
    .max(GITHUB_DEMO_LIMITS.repositories.max)
    .optional(),
  revision: z.number().int().min(0).optional(),
  seed: z.string().min(1).max(200).optional(),
});

/** A GitHub organization's login: alphanumerics and single hyphens, at most 39 characters. */
const ZGithubRealConfig = z.object({
  organization: z
    .string()
    .regex(/^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/, "must be a GitHub organization's login"),
});

const ZRealConfig = z.object({
  domain: ZDomain.optional(),
  internalDomains: z.array(ZDomain).max(100).optional(),
});

/**
 * Where the real adapters send requests. Deliberately not part of a connector's stored config:
 * base URLs come from the deployment (or a test's fakes), never from the organization's input.
 */
export type TSourceEndpoints = {
  google?: TGoogleEndpoints;
  microsoft?: TMicrosoftEndpoints;
  /** GitHub's REST API base: https://api.github.com, a GitHub Enterprise Server's, or a test's fake. */
  github?: { baseUrl: string };
};

export type TCreateSourceAdapterInput = {
  type: TConnectorType;
  mode: "demo" | "real";
  connectorId: string;
  /**
   * When the connector was made: a demo tenant's clock starts there (its revision 0), so it reads
   * the same at any time. Without it, the current hour (a tenant that drifts with the wall clock).
   */
  createdAt?: Date;
  credentials: unknown;
  config: Record<string, unknown>;
  endpoints?: TSourceEndpoints;
  http?: THttpOptions;
  /** A demo tenant's sandbox writes (remediation), laid over every read; ignored in real mode. */
  demoOverlay?: TDemoOverlayStore;
};

/** A writer is made from the same input as the connector's adapter. */
export type TCreateSourceWriterInput = TCreateSourceAdapterInput;

function parseConfig<T extends z.ZodType>(schema: T, config: Record<string, unknown>): z.infer<T> {
  const parsed = schema.safeParse(config);
  if (parsed.success) return parsed.data;
  throw new AppError("invalid_input", "Invalid connector configuration", {
    details: parsed.error.issues.map((i) => ({
      path: ["config", ...i.path.map(String)].join("."),
      message: i.message,
    })),
  });
}

/** What each mode and type is built with: the demo tenant's shape, or a real tenant's access. */
type TMakers<T> = {
  demo: (opts: TDemoOptions) => T;
  google_workspace: (opts: Parameters<typeof createGoogleWorkspaceWriter>[0]) => T;
  microsoft_365: (opts: Parameters<typeof createMicrosoft365Writer>[0]) => T;
  github_demo: (opts: {
    repositoryCount?: number | undefined;
    revision?: number | undefined;
    overlay?: TDemoOverlayStore;
  }) => T;
  github: (opts: Parameters<typeof createGithubWriter>[0]) => T;
};

/** The one reading of a connector's input, for its adapter and its writer alike. */
function build<T>(input: TCreateSourceAdapterInput, make: TMakers<T>): T {
  if (input.type === "github") {
    if (input.mode === "demo") {
      const config = parseConfig(ZGithubDemoConfig, input.config);
      return make.github_demo({
        repositoryCount: config.repositoryCount,
        revision: config.revision,
        ...(input.demoOverlay ? { overlay: input.demoOverlay } : {}),
      });
    }
    const config = parseConfig(ZGithubRealConfig, input.config);
    return make.github({
      org: config.organization,
      credentials: parseConnectorCredentials("github", input.credentials),
      ...(input.endpoints?.github ? { baseUrl: input.endpoints.github.baseUrl } : {}),
      ...(input.http ? { http: input.http } : {}),
    });
  }
  if (input.mode === "demo") {
    const config = parseConfig(ZDemoConfig, input.config);
    return make.demo({
      seed: config.seed ?? input.connectorId,
      type: input.type,
      fileCount: config.fileCount,
      userCount: config.userCount,
      revision: config.revision,
      ...(config.people ? { people: config.people } : {}),
      ...(input.createdAt ? { epoch: input.createdAt } : {}),
      ...(input.demoOverlay ? { overlay: input.demoOverlay } : {}),
    });
  }
  const config = parseConfig(ZRealConfig, input.config);
  switch (input.type) {
    case "google_workspace":
      return make.google_workspace({
        credentials: parseConnectorCredentials("google_workspace", input.credentials),
        config,
        endpoints: input.endpoints?.google,
        http: input.http,
      });
    case "microsoft_365":
      return make.microsoft_365({
        credentials: parseConnectorCredentials("microsoft_365", input.credentials),
        config,
        endpoints: input.endpoints?.microsoft,
        http: input.http,
      });
  }
}

export function createSourceAdapter(input: TCreateSourceAdapterInput): TSourceAdapter {
  return build<TSourceAdapter>(input, {
    demo: createDemoAdapter,
    google_workspace: createGoogleWorkspaceAdapter,
    microsoft_365: createMicrosoft365Adapter,
    github_demo: createGithubDemoAdapter,
    github: (opts) => githubSourceAdapter(opts.org, createGithubAdapter(opts)),
  });
}

/**
 * The writer remediation changes a connector's source through: the real APIs' documented write
 * calls, or (demo mode) the synthetic tenant's overlay, which needs `demoOverlay`.
 */
export function createSourceWriter(input: TCreateSourceWriterInput): TSourceWriter {
  const overlay = input.demoOverlay;
  return build<TSourceWriter>(input, {
    demo: (opts) => {
      if (!overlay) throw new Error("a demo writer needs the connector's overlay store");
      return createDemoWriter({ ...opts, overlay });
    },
    google_workspace: createGoogleWorkspaceWriter,
    microsoft_365: createMicrosoft365Writer,
    github_demo: (opts) => {
      if (!overlay) throw new Error("a demo writer needs the connector's overlay store");
      return createGithubDemoWriter({ ...opts, overlay });
    },
    github: createGithubWriter,
  });
}

/** A stored connector, as its adapter and writer are made from it. */
export type TStoredConnector = {
  id: string;
  type: TConnectorType;
  mode: "demo" | "real";
  createdAt: Date;
  credentialsEnc: string | null;
  config: Record<string, unknown>;
};

/** A stored connector's factory input: its credentials decrypted, its config, the runtime's endpoints. */
export function sourceInputOf(connector: TStoredConnector, runtime: TRuntime): TCreateSourceAdapterInput {
  const credentials = connector.credentialsEnc
    ? (JSON.parse(decryptSecret(runtime.encryptionKey, connector.credentialsEnc)) as unknown)
    : undefined;
  return {
    type: connector.type,
    mode: connector.mode,
    connectorId: connector.id,
    createdAt: connector.createdAt,
    credentials,
    config: connector.config,
    ...(runtime.sourceEndpoints ? { endpoints: runtime.sourceEndpoints } : {}),
  };
}
