/**
 * The cookies a client outside a browser keeps, as a browser would: what the service sets
 * (`Set-Cookie` of sign-in) is sent back on the next request, and a cookie set with
 * `Max-Age=0` (sign-out) or an expiry in the past is dropped. Only name and value are kept: the
 * client talks to one service, so domain and path do not choose between cookies.
 */
export class SessionCookies {
  private readonly values = new Map<string, string>();

  /** The `Cookie` header to send, or undefined when nothing is kept. */
  header(): string | undefined {
    if (this.values.size === 0) return undefined;
    return [...this.values].map(([name, value]) => `${name}=${value}`).join("; ");
  }

  /** Takes the `Set-Cookie` headers of a response. */
  store(setCookies: readonly string[]): void {
    for (const line of setCookies) {
      const [pair = "", ...attributes] = line.split(";");
      const eq = pair.indexOf("=");
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (value === "" || attributes.some(expired)) this.values.delete(name);
      else this.values.set(name, value);
    }
  }
}

function expired(attribute: string): boolean {
  const eq = attribute.indexOf("=");
  const key = attribute
    .slice(0, eq < 0 ? undefined : eq)
    .trim()
    .toLowerCase();
  const value = eq < 0 ? "" : attribute.slice(eq + 1).trim();
  if (key === "max-age") return Number(value) <= 0;
  if (key === "expires") return Date.parse(value) <= Date.now();
  return false;
}
