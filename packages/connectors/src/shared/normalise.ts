import { type TWorkspace } from "../types";

// Normalisation both real adapters apply the same way, whatever the source's own shapes.

/** Stands in for a timestamp the source leaves out, so normalised records always carry one. */
export const EPOCH = "1970-01-01T00:00:00.000Z";

/** The primary domain first, then the tenant's other domains; domains compare lower-cased. */
export function workspaceOf(domain: string, otherDomains: string[]): TWorkspace {
  const primary = domain.toLowerCase();
  const others = otherDomains.map((d) => d.toLowerCase()).filter((d) => d !== primary);
  return { domain: primary, internalDomains: [primary, ...others] };
}
