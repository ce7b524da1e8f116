import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { buildCatalog, scopesAllowTool } from "./catalog";
import { httpDispatch } from "./http-dispatch";
import { createMcpServer } from "./server";

// `pnpm mcp`: the MCP server on stdio, acting as the API key in SERVICE_API_KEY against the
// service at SERVICE_URL. stdout carries the protocol only; everything else goes to stderr.
const log = (msg: string) => process.stderr.write(`posture-mcp: ${msg}\n`);

async function main(): Promise<void> {
  const serviceUrl = process.env.SERVICE_URL?.trim() || "http://localhost:3000";
  const apiKey = process.env.SERVICE_API_KEY?.trim();
  if (!apiKey) {
    log(
      "SERVICE_API_KEY is not set: create an API key (POST /api/keys, or `pnpm cli key:create`) and set it",
    );
    process.exit(2);
  }
  const dispatch = httpDispatch({ serviceUrl, apiKey });
  const catalog = buildCatalog(await dispatch.document());
  // tools/list shows what the key's scopes allow, as the gateway's /mcp does (a `read` key sees
  // only reads); a call of another tool still reaches the service, which refuses it.
  const scopes = await dispatch.keyScopes();
  const server = createMcpServer(catalog, dispatch, { listed: (tool) => scopesAllowTool(scopes, tool) });
  await server.connect(new StdioServerTransport());
  log(
    `serving ${catalog.tools.filter((t) => scopesAllowTool(scopes, t)).length} tools${scopes ? ` (scopes: ${scopes.join(", ")})` : ""} and ${catalog.resources.length} report templates from ${serviceUrl}`,
  );
  const stop = () => {
    void server.close().finally(() => process.exit(0));
  };
  process.stdin.on("end", stop);
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((err: unknown) => {
  log(`could not start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
