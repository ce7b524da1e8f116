import type { Request, Response } from "express";
import {
  buildCatalog,
  handleStreamableHttp,
  MAX_RESOURCE_BYTES,
  tooLarge,
  type TCatalog,
  type TDispatch,
  type TOpenApiDocument,
  type TOperation,
  type TProcedureKind,
} from "@posture/mcp";
import {
  AppError,
  authenticate,
  compileQueryParser,
  isDownload,
  principalAllows,
  routeCatalog,
  toWireError,
  withClient,
  type TPrincipal,
  type TQueryParser,
} from "@posture/platform";
import type { TGatewayDeps } from "./deps";
import { logFault, sendError } from "./middleware/errors";
import { appRouter, callerAt } from "./router";
import { contextFactory } from "./trpc-handlers";

/**
 * The catalog as /mcp serves it: whether an operation is a tool, and its annotations, follow its
 * own procedure's kind (a tRPC query reads; anything else counts as a write), not the REST method.
 */
export function gatewayCatalog(doc: TOpenApiDocument): TCatalog {
  const catalog = routeCatalog(appRouter);
  const kindOf = (key: string): TProcedureKind =>
    catalog.byKey.get(key)?.kind === "query" ? "query" : "mutation";
  return buildCatalog(doc, { kindOf });
}

async function collect(body: Buffer | (() => AsyncIterable<Uint8Array>)): Promise<Buffer | null> {
  if (Buffer.isBuffer(body)) return body.length > MAX_RESOURCE_BYTES ? null : body;
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body()) {
    size += chunk.length;
    if (size > MAX_RESOURCE_BYTES) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * The tools' calls, in process: each runs the operation's own procedure through a tRPC caller with
 * the context of the /mcp request, so the key's credential kind, plan, role and the procedure's
 * input validation run exactly as for the REST call, and its audit rows name the MCP client.
 * The /mcp request itself went through the access middleware (rate limit, credential).
 */
function inProcessDispatch(deps: TGatewayDeps, req: Request, res: Response): TDispatch {
  const makeContext = contextFactory(deps);
  const catalog = routeCatalog(appRouter);
  const parsers = new Map<string, TQueryParser>();
  const run = async (key: string, input: unknown, client: string) => {
    const ctx = makeContext({ req, res });
    if (ctx.principal) ctx.principal = withClient(ctx.principal, client);
    try {
      return { ok: true as const, out: await callerAt(ctx, key)(input), status: ctx.response.status ?? 200 };
    } catch (error) {
      const wire = toWireError(error);
      logFault(deps.log, wire, error, { requestId: req.requestId, path: key });
      return { ok: false as const, status: wire.status, body: wire.body };
    }
  };
  return {
    async call(op, args, client) {
      const r = await run(op.key, args, client);
      return r.ok ? { status: r.status, body: r.out } : r;
    },
    async download(op: TOperation, args, client) {
      // URI template values are strings: converted to the field types as a query string is.
      let parse = parsers.get(op.key);
      if (!parse) {
        parse = compileQueryParser(catalog.byKey.get(op.key)?.input);
        parsers.set(op.key, parse);
      }
      const r = await run(op.key, parse(args), client);
      if (!r.ok) return r;
      if (!isDownload(r.out)) return { status: r.status, body: r.out };
      const bytes = await collect(r.out.body);
      return bytes ? { status: 200, contentType: r.out.contentType, bytes } : tooLarge();
    },
  };
}

/**
 * MCP over Streamable HTTP at /mcp, as the API key in `Authorization: Bearer`, stateless (see
 * @posture/mcp http.ts). GET (a server-sent stream) is not offered: 405, as the transport
 * specification allows. Mounted after the access middleware: limits and credentials apply.
 */
export function mcpHandler(deps: TGatewayDeps, document: () => { doc: unknown }) {
  let catalog: TCatalog | undefined;
  const makeContext = contextFactory(deps);
  return async (req: Request, res: Response): Promise<void> => {
    if (req.method !== "POST" && req.method !== "DELETE") {
      res.setHeader("Allow", "POST, DELETE");
      sendError(
        res,
        new AppError("method_not_allowed", "MCP at /mcp takes POST (and DELETE to end a session)"),
      );
      return;
    }
    // An API key only: a browser's cookie never reaches the tools (and so no CSRF surface).
    if (req.credentialSource !== "api_key") {
      sendError(res, new AppError("unauthenticated", "Authorization: Bearer <API key> required"));
      return;
    }
    let principal: TPrincipal;
    try {
      principal = authenticate(makeContext({ req, res }), "apiKey");
    } catch (err) {
      sendError(res, err);
      return;
    }
    catalog ??= gatewayCatalog(document().doc as TOpenApiDocument);
    // tools/list shows what the key's scopes allow; a call still runs the procedure, whose gate
    // refuses a write with a read key (403 insufficient_scope) whatever the client was shown.
    await handleStreamableHttp(req, res, req.body, catalog, inProcessDispatch(deps, req, res), {
      listed: (tool) => principalAllows(principal, tool.kind),
    });
  };
}
