import { Router, type Request, type Response } from "express";
import { generateOpenApiDocument, type OpenAPIObject } from "trpc-to-openapi";
import type { TAccess, TMeta } from "@posture/platform";
import type { TGatewayDeps } from "./deps";
import { renderDocsPage } from "./docs-page";
import { appRouter } from "./router";

const SECURITY_BY_AUTH: Record<TAccess["auth"], Array<Record<string, string[]>>> = {
  public: [],
  apiKey: [{ apiKey: [] }, { session: [] }],
  session: [{ session: [] }],
  partner: [{ apiKey: [] }, { session: [] }],
};

type TOperation = { security?: unknown; description?: string; "x-access"?: TAccess };

/** Adds each operation's auth (security), plan and role from the procedure's access meta. */
function annotateAccess(doc: OpenAPIObject): OpenAPIObject {
  const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { meta?: TMeta } }>;
  for (const proc of Object.values(procedures)) {
    const meta = proc._def.meta;
    const openapi = meta?.openapi;
    if (!openapi || !meta.access) continue;
    const path = openapi.path.replace(/\{(\w+)\}/g, "{$1}");
    const op = (doc.paths?.[path] as Record<string, TOperation> | undefined)?.[openapi.method.toLowerCase()];
    if (!op) continue;
    const access = meta.access;
    op.security = SECURITY_BY_AUTH[access.auth];
    op["x-access"] = access;
    const parts = [
      access.auth === "public"
        ? "Public"
        : `Auth: ${access.auth === "apiKey" ? "API key or session" : access.auth}`,
      access.plan ? `plan: ${access.plan}+` : null,
      access.feature ? `needs: ${access.feature}` : null,
      access.role ? `role: ${access.role === "ADMIN" ? "ADMIN+" : access.role}` : null,
    ].filter(Boolean);
    op.description = [op.description, parts.join(" · ")].filter(Boolean).join("\n\n");
  }
  return doc;
}

export function buildOpenApiDocument(publicUrl: string): OpenAPIObject {
  const doc = generateOpenApiDocument(appRouter, {
    title: "Security Posture Developer API",
    version: "1",
    description: "One API over an organization's SaaS security posture. Errors are `{error, message}`.",
    baseUrl: `${publicUrl.replace(/\/$/, "")}/api`,
    securitySchemes: {
      apiKey: { type: "http", scheme: "bearer", description: "`Authorization: Bearer svc_ak_…`" },
      session: {
        type: "apiKey",
        in: "cookie",
        name: "svc_session",
        description: "Signed-in browser session",
      },
    },
  });
  return annotateAccess(doc);
}

export function openApiRoutes(deps: TGatewayDeps): Router {
  const r = Router();
  let cached: { json: string; html: string } | undefined;
  const get = () => {
    if (!cached) {
      const doc = buildOpenApiDocument(deps.runtime.publicUrl);
      cached = { json: JSON.stringify(doc), html: renderDocsPage(doc) };
    }
    return cached;
  };
  r.get("/openapi.json", (_req: Request, res: Response) => {
    res.type("application/json").send(get().json);
  });
  r.get("/docs", (_req: Request, res: Response) => {
    res.setHeader(
      "Content-Security-Policy",
      "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    );
    res.type("text/html").send(get().html);
  });
  return r;
}
