import { z } from "zod";
import { DEMO_LIMITS, GITHUB_DEMO_LIMITS } from "@posture/connectors";
import { CONNECTOR_TYPES } from "@posture/db";
import { ZTimestamp, type TMeta } from "@posture/platform";

export const ZConnector = z.object({
  id: z.string(),
  type: z.string(),
  displayName: z.string(),
  mode: z.string(),
  status: z.string(),
  healthStatus: z.string(),
  resourceCount: z.number().int().nonnegative(),
  findingCount: z.number().int().nonnegative(),
  lastScanAt: ZTimestamp.nullable(),
  createdAt: ZTimestamp,
  writeAccess: z
    .boolean()
    .describe("Remediation may change the source (opt-in per connector; demo connectors start opted in)"),
  access: z
    .object({
      granted: z
        .array(
          z.object({
            feature: z.string().describe("What the connector reads with it, e.g. `Tenant settings`"),
            permission: z
              .string()
              .describe(
                "Google OAuth scope or Microsoft application permission, as the admin console names it",
              ),
          }),
        )
        .describe("Requirements the tenant grants"),
      missing: z
        .array(
          z.object({
            feature: z.string(),
            permission: z.string(),
            licence: z.string().optional().describe("A licence the feature also needs, e.g. `Entra ID P1`"),
            impact: z.string().describe("What scans cannot see without it"),
            detail: z
              .string()
              .optional()
              .describe("What the source answered; `unknown: …` when it could not be reached"),
          }),
        )
        .describe("Requirements not granted, or unknown because the source could not be asked"),
    })
    .nullable()
    .describe(
      "The connect-time access check: each scope or permission the connector's features need. Demo sources grant all; null for a connector made before access was checked.",
    ),
  demo: z
    .object({
      files: z
        .number()
        .int()
        .nonnegative()
        .describe("Files of the synthetic workspace at revision 0 (GitHub: its repositories)"),
      users: z
        .number()
        .int()
        .nonnegative()
        .describe("Users of the synthetic workspace at revision 0 (GitHub: the organization's members)"),
      repositories: z
        .number()
        .int()
        .nonnegative()
        .optional()
        .describe("GitHub only: the demo organization's repositories"),
      revision: z
        .number()
        .int()
        .nonnegative()
        .describe("The workspace's revision: each is a day of its life, with about 1 % of files changed"),
    })
    .nullable()
    .describe("A demo source's size and revision; null for a real source"),
});

export const ZConnectorIdInput = z.strictObject({ id: z.string().min(1).max(100) });

export const listConnectorsMeta = {
  openapi: { method: "GET", path: "/connectors", tags: ["connectors"], summary: "List connected sources" },
} satisfies TMeta;
export const ZListConnectorsOutput = z.object({ connectors: z.array(ZConnector) });

export const createConnectorMeta = {
  openapi: {
    method: "POST",
    path: "/connectors",
    tags: ["connectors"],
    summary: "Connect a source",
    description:
      "mode `demo` reads a deterministic synthetic workspace of that type, sized by `demo` (`files` up to 1,000,000; `users` by default one per 40 files, at least 25), starting at revision 0 and changing only when a sync advances it; `demo` with mode `real` is a 400. `real` needs the source's credentials (encrypted at rest, never returned) and asks the source, within 30 s, which of the scopes or application permissions the connector's features need it grants: the answer's `access` lists them granted and missing (with the licence and the impact). A source that cannot be reached still connects, with every requirement missing and `detail` saying why. 402 plan_limit_reached past sources.max; 409 sandbox_demo_only for mode `real` in a sandbox organization (docs/sandbox.md).",
    successDescription: "Created",
  },
  successStatus: 201,
  errors: ["plan_limit_reached", "sandbox_demo_only"],
} satisfies TMeta;

export const ZDemoSize = z
  .strictObject({
    files: z
      .number()
      .int()
      .min(DEMO_LIMITS.files.min)
      .max(DEMO_LIMITS.files.max)
      .optional()
      .meta({ description: "How many files the synthetic workspace holds (default 2,000)" }),
    users: z
      .number()
      .int()
      .min(DEMO_LIMITS.users.min)
      .max(DEMO_LIMITS.users.max)
      .optional()
      .meta({ description: "How many users it has (default one per 40 files, at least 25)" }),
    repositories: z
      .number()
      .int()
      .min(GITHUB_DEMO_LIMITS.repositories.min)
      .max(GITHUB_DEMO_LIMITS.repositories.max)
      .optional()
      .meta({
        description: `type github: how many repositories the demo organization holds (default ${GITHUB_DEMO_LIMITS.repositories.default}, at most ${GITHUB_DEMO_LIMITS.repositories.max.toLocaleString("en-US")})`,
      }),
  })
  .meta({ description: "demo: the synthetic workspace's size" });

const DEMO_CONFIG_FIELDS = ["fileCount", "revision"] as const;
const REAL_CONFIG_FIELDS = ["domain", "internalDomains", "scopes", "organization"] as const;

export const ZCreateConnectorInput = z
  .strictObject({
    // The one list of sources (db schema): a new source is accepted here without an edit.
    type: z.enum(CONNECTOR_TYPES),
    displayName: z.string().trim().min(1).max(100),
    mode: z.enum(["real", "demo"]),
    credentials: z.record(z.string(), z.unknown()).optional(),
    demo: ZDemoSize.optional(),
    writeAccess: z.boolean().optional().meta({
      description:
        "Whether remediation may change the source (default: true for a demo connector, whose changes land in its sandbox; false for a real one). Writing needs the write scopes or application permissions listed in docs/operations.md.",
    }),
    config: z
      .strictObject({
        fileCount: z
          .number()
          .int()
          .min(1)
          .max(100_000)
          .optional()
          .meta({ description: "demo: how many files the synthetic workspace holds (prefer `demo.files`)" }),
        revision: z
          .number()
          .int()
          .min(0)
          .max(1_000_000)
          .optional()
          .meta({ description: "demo: which revision of the synthetic workspace a scan reads" }),
        domain: z.string().max(253).optional().meta({ description: "real: the tenant's primary domain" }),
        internalDomains: z
          .array(z.string().max(253))
          .max(100)
          .optional()
          .meta({ description: "real: further domains that count as internal" }),
        scopes: z
          .array(z.string().min(1).max(500))
          .max(100)
          .optional()
          .meta({ description: "real: the OAuth scopes granted to the connection" }),
        organization: z.string().max(39).optional().meta({
          description:
            "real, type github: the login of the GitHub organization the app is installed on (required there)",
        }),
      })
      .optional(),
  })
  .superRefine((v, ctx) => {
    if (v.mode === "real" && v.credentials === undefined)
      ctx.addIssue({
        code: "custom",
        path: ["credentials"],
        message: "credentials are required in real mode",
      });
    if (v.mode === "real" && v.demo !== undefined)
      ctx.addIssue({ code: "custom", path: ["demo"], message: "demo applies to demo connectors only" });
    // A GitHub organization is sized in repositories, a suite's workspace in files and users.
    const github = v.type === "github";
    for (const key of github ? (["files", "users"] as const) : (["repositories"] as const))
      if (v.demo?.[key] !== undefined)
        ctx.addIssue({
          code: "custom",
          path: ["demo", key],
          message: github
            ? `a GitHub demo organization is sized by demo.repositories, not demo.${key}`
            : "demo.repositories applies to GitHub demo connectors only",
        });
    for (const key of github
      ? (["domain", "internalDomains", "scopes", "fileCount"] as const)
      : (["organization"] as const))
      if (v.config?.[key] !== undefined)
        ctx.addIssue({
          code: "custom",
          path: ["config", key],
          message: github
            ? `${key} does not apply to GitHub connectors`
            : "organization applies to GitHub connectors only",
        });
    if (github && v.mode === "real" && v.config?.organization === undefined)
      ctx.addIssue({
        code: "custom",
        path: ["config", "organization"],
        message: "the GitHub organization's login is required in real mode",
      });
    if (v.demo?.files !== undefined && v.config?.fileCount !== undefined)
      ctx.addIssue({
        code: "custom",
        path: ["config", "fileCount"],
        message: "give the size once, as demo.files",
      });
    // A field of the other mode would be silently ignored: refused like an unknown one.
    const other = v.mode === "demo" ? REAL_CONFIG_FIELDS : DEMO_CONFIG_FIELDS;
    for (const key of other)
      if (v.config?.[key] !== undefined)
        ctx.addIssue({
          code: "custom",
          path: ["config", key],
          message: `${key} applies to ${v.mode === "demo" ? "real" : "demo"} connectors only`,
        });
  });

export const updateConnectorMeta = {
  openapi: {
    method: "PATCH",
    path: "/connectors/{id}",
    tags: ["connectors"],
    summary: "Rename a source or turn remediation's write access on or off",
    description:
      "`writeAccess: true` lets remediation change the source: delete or downgrade file permissions, revoke OAuth grants, transfer ownership. A real source also needs the write scopes (Google Workspace domain-wide delegation) or application permissions (Microsoft Graph) listed in docs/operations.md; without them a remediation answers with a 4xx naming the missing scope. A demo connector writes to its sandbox: the synthetic tenant changes, the next scan sees it, undo brings it back. `false` makes the connector read-only again: remediations already applied stay applied. Audited as `CONNECTOR_UPDATED` with the fields changed. Another organization's id is a 404.",
  },
} satisfies TMeta;
export const ZUpdateConnectorInput = z.strictObject({
  id: z.string().min(1).max(100),
  displayName: z.string().trim().min(1).max(100).optional(),
  writeAccess: z.boolean().optional().meta({
    description: "Whether remediation may change the source (see docs/operations.md for the scopes)",
  }),
});

export const deleteConnectorMeta = {
  openapi: {
    method: "DELETE",
    path: "/connectors/{id}",
    tags: ["connectors"],
    summary: "Disconnect a source and remove its findings",
    description:
      "Removes the connector with its stored workspace, findings, grants and tickets. 409 `conflict` while a scan is writing the stored workspace of a connector whose first scan was large (it has partitions of its own, emptied before the delete); nothing is deleted, try again shortly.",
  },
  errors: ["conflict"],
} satisfies TMeta;
export const ZDeleteConnectorOutput = z.object({ disconnected: z.literal(true) });

export const syncConnectorMeta = {
  openapi: {
    method: "POST",
    path: "/connectors/{id}/sync",
    tags: ["connectors"],
    summary: "Scan a source now",
    description:
      "Queues a scan and waits for it. 202 with the `scanId` and status QUEUED or RUNNING if it takes longer than the wait, or when the gateway answering it is shutting down: a sync still running then is answered within the shutdown grace the deployment declares (`SHUTDOWN_GRACE_MS`, 25 s by default), and the scan goes on as a queued job that the scheduler (or, without Redis, the gateway's next start) finishes, once; follow it with `GET /api/connectors/{id}/scans/{scanId}`. 429 past the plan's daily manual-scan ceiling (Retry-After until 00:00 UTC); 502 when the source fails. " +
      "A scan is incremental when the source has change feeds and an earlier scan left their position: it reads the files changed since, and users, shared drives, app grants and settings whole. " +
      "It is full on the first scan, when asked (`full: true`), when the source has no change feed, when a feed's position expired (`fullReason: cursor_expired`: the scan started incremental and re-read everything), " +
      "and when the trusted or internal domains changed since the last scan. A scan already queued or running for the source is joined, whatever the body asks.",
  },
  errors: ["upstream_unavailable", "service_unavailable"],
} satisfies TMeta;
export const ZSyncConnectorInput = z.strictObject({
  id: z.string().min(1).max(100),
  full: z
    .boolean()
    .optional()
    .meta({ description: "Read the whole source even if its change feeds could say what changed" }),
  demo: z
    .strictObject({
      advance: z
        .number()
        .int()
        .min(1)
        .max(1000)
        .optional()
        .meta({ description: "Move the synthetic tenant this many revisions forward before the scan" }),
    })
    .optional()
    .meta({ description: "Demo connectors only (400 for a real one): change the sandbox tenant first" }),
});
export const ZScanResult = z.object({
  scanId: z.string(),
  status: z.enum(["QUEUED", "RUNNING", "COMPLETE", "FAILED"]),
  kind: z
    .enum(["full", "incremental"])
    .describe(
      "`full`: the whole source was read; `incremental`: only the files changed since the last scan (users, shared drives, app grants and settings are read whole every scan). Until a queued scan starts, `full`.",
    ),
  fullReason: z
    .enum(["first", "requested", "no_feed", "cursor_expired", "rules_changed"])
    .nullable()
    .describe(
      "Why a full scan was full: `first` (no earlier position of the change feeds), `requested` (`full: true`), `no_feed` (the source has no change feed), `cursor_expired` (the feeds' position expired: the scan fell back to reading everything), `rules_changed` (trusted or internal domains, the broad-group threshold or the directory's groups changed, so unchanged files are judged anew). Null for an incremental scan and for a scan not yet started.",
    ),
  resources: z
    .number()
    .int()
    .nonnegative()
    .describe(
      "Users, files, shared drives and app grants: those read by a full scan, those stored after an incremental one",
    ),
  findingsNew: z.number().int().nonnegative(),
  findingsResolved: z.number().int().nonnegative(),
  postureScore: z.number().int().min(0).max(100),
  coverage: z
    .array(
      z.object({
        feature: z.string().describe("What could not be read, e.g. `Tenant settings`, `MFA registration`"),
        missing: z.string().describe("The permission, scope or licence missing, or the error"),
        detail: z.string().describe("What the scan skipped because of it"),
      }),
    )
    .describe("What the scan could not read and why: empty when it read everything"),
  timing: z
    .object({
      queuedMs: z.number().int().nonnegative().describe("From the request to a worker starting the scan"),
      totalMs: z.number().int().nonnegative().describe("From the first stage's start to the last's end"),
      stages: z
        .array(z.object({ stage: z.string(), ms: z.number().int().nonnegative() }))
        .describe(
          "Each stage's milliseconds, in the order the stages ended: `plan`, the source's reads (`groups`, `users`, `files`, `drives`, `apps`, as the source has them), `settings` (tenant configuration), `commit` (the snapshot), `persist` (the findings and score), `ai_reach`, `handoff` (events and follow-up jobs). They add up to `totalMs`.",
        ),
    })
    .nullable()
    .describe(
      "Where the scan's time went, for an operator: null until the scan's last stage ended, and for a failed scan",
    ),
});
