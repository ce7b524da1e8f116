import { fillPath, type TOpenApiDocument, type TOperation } from "./catalog";
import { SERVER_VERSION, type TCallResult, type TDispatch, type TFileResult } from "./server";

/** Largest report a resource read holds in memory (an MCP resource is one message). */
export const MAX_RESOURCE_BYTES = 20 * 1024 * 1024;

export type THttpOptions = {
  /** The service's base URL, e.g. http://localhost:3000. */
  serviceUrl: string;
  apiKey: string;
  fetch?: typeof fetch;
  /** Per call; the service answers a read in milliseconds, a report in seconds. */
  timeoutMs?: number;
};

function query(op: TOperation, args: Record<string, unknown>): string {
  const q = new URLSearchParams();
  for (const name of op.queryParams) {
    const value = args[name];
    if (value === undefined || value === null) continue;
    for (const v of Array.isArray(value) ? value : [value]) q.append(name, String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : "";
}

async function parse(res: Response): Promise<unknown> {
  const text = await res.text();
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return { error: "upstream_unavailable", message: `Unexpected ${res.status} response from the service` };
  }
}

/**
 * Calls the service's REST API as the API key, exactly as any integrator would: the service
 * checks the key's role, plan and rate limit and writes the audit trail. Each request says which
 * MCP client made it (X-Service-Client, recorded in audit rows) and carries a User-Agent.
 */
export function httpDispatch(o: THttpOptions): TDispatch & {
  document(): Promise<TOpenApiDocument>;
  keyScopes(): Promise<readonly string[] | null>;
} {
  const base = o.serviceUrl.replace(/\/+$/, "");
  const doFetch = o.fetch ?? fetch;
  const timeoutMs = o.timeoutMs ?? 120_000;
  const headers = (client: string, accept: string): Record<string, string> => ({
    authorization: `Bearer ${o.apiKey}`,
    accept,
    "x-service-client": client,
    "user-agent": `posture-mcp/${SERVER_VERSION} (${client})`,
  });
  const unreachable = (err: unknown): TCallResult => ({
    status: 503,
    body: {
      error: "service_unavailable",
      message: `The service at ${base} did not answer: ${err instanceof Error ? err.message : String(err)}`,
    },
  });

  return {
    async document() {
      const res = await doFetch(`${base}/api/openapi.json`, { signal: AbortSignal.timeout(timeoutMs) });
      if (!res.ok) throw new Error(`GET ${base}/api/openapi.json answered ${res.status}`);
      return (await res.json()) as TOpenApiDocument;
    },

    /**
     * The key's scopes (GET /api/keys/current): null for an unscoped key. A service that cannot
     * say (an older one: 404) gives null too, and every tool is listed; the service still refuses
     * what the key may not do.
     */
    async keyScopes() {
      const res = await doFetch(`${base}/api/keys/current`, {
        headers: headers("mcp:stdio", "application/json"),
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (!res.ok) {
        await res.body?.cancel();
        return null;
      }
      const body = (await res.json()) as { scopes?: unknown };
      return Array.isArray(body.scopes)
        ? body.scopes.filter((s): s is string => typeof s === "string")
        : null;
    },

    async call(op, args, client): Promise<TCallResult> {
      const url = `${base}/api${fillPath(op, args)}`;
      try {
        if (op.method === "GET") {
          const res = await doFetch(url + query(op, args), {
            headers: headers(client, "application/json"),
            signal: AbortSignal.timeout(timeoutMs),
          });
          return { status: res.status, body: await parse(res) };
        }
        const body: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(args)) if (!op.pathParams.includes(k)) body[k] = v;
        const res = await doFetch(url, {
          method: op.method,
          headers: { ...headers(client, "application/json"), "content-type": "application/json" },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(timeoutMs),
        });
        return { status: res.status, body: await parse(res) };
      } catch (err) {
        return unreachable(err);
      }
    },

    async download(op, args, client): Promise<TFileResult> {
      try {
        const res = await doFetch(`${base}/api${fillPath(op, args)}${query(op, args)}`, {
          headers: headers(client, "*/*"),
          signal: AbortSignal.timeout(timeoutMs),
        });
        const type = (res.headers.get("content-type") ?? "").split(";")[0]?.trim() ?? "";
        if (!res.ok || type === "application/json") return { status: res.status, body: await parse(res) };
        const size = Number(res.headers.get("content-length") ?? 0);
        if (size > MAX_RESOURCE_BYTES) {
          await res.body?.cancel();
          return tooLarge();
        }
        const bytes = Buffer.from(await res.arrayBuffer());
        if (bytes.length > MAX_RESOURCE_BYTES) return tooLarge();
        return { status: res.status, contentType: type, bytes };
      } catch (err) {
        return unreachable(err);
      }
    },
  };
}

export const tooLarge = (): TCallResult => ({
  status: 413,
  body: {
    error: "payload_too_large",
    message: `The report is larger than ${MAX_RESOURCE_BYTES} bytes, too large for one MCP resource; download it from the REST API`,
  },
});
