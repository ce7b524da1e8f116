import type { IncomingMessage, ServerResponse } from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { TCatalog, TTool } from "./catalog";
import { createMcpServer, type TDispatch } from "./server";
import { clientOfSession, sessionIdFor } from "./session";

type TJsonRpc = { method?: unknown; params?: { clientInfo?: { name?: unknown; version?: unknown } } };

/**
 * The JSON-RPC error a batch gets. Batches left MCP with protocol version 2025-06-18, and one POST
 * carrying up to 100 calls would be one request to the rate limiter: each POST is one message.
 */
export const BATCH_REFUSED = {
  jsonrpc: "2.0",
  error: {
    code: -32600,
    message: "Invalid Request: JSON-RPC batches are not supported; send one JSON-RPC message per POST",
  },
  id: null,
} as const;

/**
 * One Streamable HTTP request, stateless: a fresh server and transport per request (any replica
 * answers any request), JSON responses rather than SSE. The client's name and version from its
 * initialize request travel in the session id it is given (session.ts) and come back on each
 * later request. The caller has authenticated the request and parsed its JSON body. A batch (a
 * JSON array) is 400 with BATCH_REFUSED before a server exists, so none of its calls runs.
 */
export async function handleStreamableHttp(
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  catalog: TCatalog,
  dispatch: TDispatch,
  opts: { listed?: (tool: TTool) => boolean } = {},
): Promise<void> {
  if (Array.isArray(body)) {
    res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify(BATCH_REFUSED));
    return;
  }
  const message = body as TJsonRpc | undefined;
  const init = message?.method === "initialize" ? message : undefined;
  if (init) {
    const info = init.params?.clientInfo;
    res.setHeader(
      "Mcp-Session-Id",
      sessionIdFor({
        name: typeof info?.name === "string" ? info.name : "unknown",
        version: typeof info?.version === "string" ? info.version : "",
      }),
    );
  }
  const header = req.headers["mcp-session-id"];
  const declared = clientOfSession(Array.isArray(header) ? header[0] : header);
  // Only these need the resource handlers; the capability itself is declared either way.
  const method = typeof message?.method === "string" ? message.method : "";
  const resources = method === "initialize" || method.startsWith("resources/");
  const server = createMcpServer(catalog, dispatch, {
    client: () => declared,
    resources,
    ...(opts.listed ? { listed: opts.listed } : {}),
  });
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  res.on("close", () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}
