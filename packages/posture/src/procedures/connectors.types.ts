import { z } from "zod";
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
});

export const ZConnectorIdInput = z.object({ id: z.string().min(1).max(100) });

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
      "mode `demo` reads a deterministic synthetic workspace of that type; `real` needs the source's credentials (encrypted at rest, never returned). 402 plan_limit_reached past sources.max.",
    successDescription: "Created",
  },
  successStatus: 201,
  errors: ["plan_limit_reached"],
} satisfies TMeta;
export const ZCreateConnectorInput = z
  .object({
    type: z.enum(["google_workspace", "microsoft_365"]),
    displayName: z.string().trim().min(1).max(100),
    mode: z.enum(["real", "demo"]),
    credentials: z.record(z.string(), z.unknown()).optional(),
    config: z
      .object({
        fileCount: z.number().int().min(1).max(100_000).optional(),
        revision: z.number().int().min(0).max(1_000_000).optional(),
      })
      .catchall(z.unknown())
      .optional(),
  })
  .refine((v) => v.mode === "demo" || v.credentials !== undefined, {
    message: "credentials are required in real mode",
    path: ["credentials"],
  });

export const deleteConnectorMeta = {
  openapi: {
    method: "DELETE",
    path: "/connectors/{id}",
    tags: ["connectors"],
    summary: "Disconnect a source and remove its findings",
  },
} satisfies TMeta;
export const ZDeleteConnectorOutput = z.object({ disconnected: z.literal(true) });

export const syncConnectorMeta = {
  openapi: {
    method: "POST",
    path: "/connectors/{id}/sync",
    tags: ["connectors"],
    summary: "Scan a source now",
    description:
      "Queues a scan and waits for it. 202 with status RUNNING if it takes longer than the wait; 429 past the plan's daily manual-scan ceiling (Retry-After until 00:00 UTC); 502 when the source fails.",
  },
  errors: ["upstream_unavailable", "service_unavailable"],
} satisfies TMeta;
export const ZScanResult = z.object({
  scanId: z.string(),
  status: z.enum(["QUEUED", "RUNNING", "COMPLETE", "FAILED"]),
  resources: z.number().int().nonnegative(),
  findingsNew: z.number().int().nonnegative(),
  findingsResolved: z.number().int().nonnegative(),
  postureScore: z.number().int().min(0).max(100),
});
