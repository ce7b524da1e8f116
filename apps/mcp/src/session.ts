import type { Implementation } from "@modelcontextprotocol/sdk/types.js";

// Streamable HTTP at the gateway is stateless (any replica answers any request), so the only
// thing a session must remember, the client's name and version from its initialize request,
// travels in the session id itself: `c1.<base64url JSON>`. Clients send it back on every request.
const PREFIX = "c1.";

export function sessionIdFor(info: Implementation | undefined): string {
  const name = (info?.name ?? "unknown").slice(0, 60);
  const version = (info?.version ?? "").slice(0, 30);
  return PREFIX + Buffer.from(JSON.stringify({ n: name, v: version })).toString("base64url");
}

/** The client a session id names; undefined for anything else (ids are never trusted for access). */
export function clientOfSession(id: string | undefined): Implementation | undefined {
  if (!id?.startsWith(PREFIX) || id.length > 300) return undefined;
  try {
    const v = JSON.parse(Buffer.from(id.slice(PREFIX.length), "base64url").toString("utf8")) as unknown;
    const o = v as { n?: unknown; v?: unknown };
    return typeof o.n === "string" && typeof o.v === "string" ? { name: o.n, version: o.v } : undefined;
  } catch {
    return undefined;
  }
}
