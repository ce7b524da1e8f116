import type { IncomingMessage, ServerResponse } from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { TCatalog } from "./catalog";
import { createMcpServer, type TDispatch } from "./server";
import { clientOfSession, sessionIdFor } from "./session";

type TJsonRpc = { method?: unknown; params?: { clientInfo?: { name?: unknown; version?: unknown } } };

/**
 * One Streamable HTTP request, stateless: a fresh server and transport per request (any replica
 * answers any request), JSON responses rather than SSE. The client's name and version from its
 * initialize request travel in the session id it is given (session.ts) and come back on each
 * later request. The caller has authenticated the request and parsed its JSON body.
 */
export async function handleStreamableHttp(
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  catalog: TCatalog,
  dispatch: TDispatch,
): Promise<void> {
  const messages = (Array.isArray(body) ? body : [body]) as Array<TJsonRpc | undefined>;
  const init = messages.find((m) => m?.method === "initialize");
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
  const resources = messages.some(
    (m) => m?.method === "initialize" || (typeof m?.method === "string" && m.method.startsWith("resources/")),
  );
  const server = createMcpServer(catalog, dispatch, { client: () => declared, resources });
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
