import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { Router, type NextFunction, type Request, type Response } from "express";
import {
  compileQueryParser,
  compileRequestFields,
  isDownload,
  routeCatalog,
  type TDownload,
} from "@posture/platform";
import type { TGatewayDeps } from "./deps";
import { literalPathOfOtherMethods } from "./rest-dispatch";
import { appRouter, callerAt } from "./router";
import { contextFactory } from "./trpc-handlers";

/** `/compliance/evidence/{jobId}` → `/compliance/evidence/:jobId` */
const expressPath = (openApiPath: string) => openApiPath.replace(/\{([^}]+)\}/g, ":$1");

/** A file name safe inside a quoted Content-Disposition parameter, with the UTF-8 form beside it. */
function disposition(filename: string): string {
  const ascii = filename.replace(/[^\w.-]+/g, "_").slice(0, 150) || "download";
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

async function send(res: Response, d: TDownload): Promise<void> {
  res.status(200);
  res.setHeader("Content-Type", d.contentType);
  res.setHeader("Content-Disposition", disposition(d.filename));
  res.setHeader("Cache-Control", "private, no-store");
  res.setHeader("X-Content-Type-Options", "nosniff");
  if (Buffer.isBuffer(d.body)) {
    res.setHeader("Content-Length", d.body.length);
    res.end(d.body);
    return;
  }
  if (d.size !== undefined) res.setHeader("Content-Length", d.size);
  await pipeline(Readable.from(d.body()), res);
}

/**
 * Routes for procedures that answer with a file (meta `download`). The procedure is called through
 * a tRPC caller, so its guards (credential kind, plan, role, rate limits) and input validation run
 * exactly as they do for the JSON API; only the answer is written differently: raw bytes with
 * their content type, streamed, instead of a JSON body. Mounted before the REST handler.
 */
export function downloadRoutes(deps: TGatewayDeps): Router {
  const r = Router();
  const makeContext = contextFactory(deps);
  const catalog = routeCatalog(appRouter);
  // A literal path of another procedure wins over a download's parameter (GET
  // /partner/reports/portfolio is not the report "portfolio"), as in the REST handler.
  const literal = new Set(
    catalog.rest.flatMap((e) =>
      !e.download && e.rest.literal ? [`${e.rest.method} ${e.rest.apiPath}`] : [],
    ),
  );
  const otherMethodsPath = literalPathOfOtherMethods(appRouter);
  for (const { key, rest: openapi, download, input: schema } of catalog.rest) {
    if (!download) continue;
    const negotiate = download.negotiate === true;
    const types = [...download.contentTypes, "application/json"];
    const method = openapi.method.toLowerCase() as "get" | "post";
    const parseQuery = compileQueryParser(schema);
    const fields = compileRequestFields(schema, { pathParams: openapi.params, body: method !== "get" });
    r[method](expressPath(openapi.path), async (req: Request, res: Response, next: NextFunction) => {
      if (
        literal.has(`${openapi.method} ${req.baseUrl}${req.path}`) ||
        otherMethodsPath(req.method, req.path)
      ) {
        next();
        return;
      }
      try {
        req.requestProblem = fields(req.query as Record<string, unknown>, req.body);
        const ctx = makeContext({ req });
        const input: Record<string, unknown> = {
          ...parseQuery(req.query as Record<string, unknown>),
          ...req.params,
        };
        if (negotiate && input.format === undefined && req.accepts(types) === "application/json") {
          input.format = "json";
        }
        const out = await callerAt(ctx, key)(method === "get" ? input : { ...input, ...req.body });
        for (const [k, v] of Object.entries(ctx.response.headers)) res.setHeader(k, v);
        if (isDownload(out)) {
          await send(res, out);
          return;
        }
        res.status(ctx.response.status ?? 200).json(out);
      } catch (err) {
        if (res.headersSent) {
          deps.log.error({ err, requestId: req.requestId }, "download failed mid-stream");
          res.destroy();
          return;
        }
        next(err);
      }
    });
  }
  return r;
}
