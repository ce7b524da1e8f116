import { lookup } from "node:dns/promises";
import { isIP, type LookupFunction } from "node:net";
import { classifyAddress } from "./ip-ranges";

// The SSRF guard for every outbound call to a tenant-supplied URL (webhooks, issue trackers,
// partner logos): resolve once, refuse unless every address is public, then connect only to
// the addresses that were checked (pinnedLookup), so a DNS answer that changes in between
// (rebinding) is never used.

export type TResolvedAddress = { address: string; family: 4 | 6 };

/** Every address a host name resolves to; injectable so tests can simulate DNS answers. */
export type TResolver = (hostname: string) => Promise<TResolvedAddress[]>;

export const systemResolver: TResolver = async (hostname) => {
  const answers = await lookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** A target the guard refused; the message is safe to show to the tenant who supplied the URL. */
export class TargetRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TargetRefusedError";
  }
}

export type TVettedTarget = { url: URL; hostname: string; addresses: TResolvedAddress[] };

export type TVetOptions = {
  allowPrivateTargets: boolean;
  resolve?: TResolver;
  /** Bound on resolution: a hung resolver must not outlast the delivery's own timeout. */
  timeoutMs?: number;
};

async function resolveWithin(resolve: TResolver, hostname: string, timeoutMs: number | undefined) {
  if (timeoutMs === undefined) return resolve(hostname);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TargetRefusedError(`resolving ${hostname} timed out`)), timeoutMs);
  });
  try {
    return await Promise.race([resolve(hostname), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const MAX_URL_LENGTH = 2048;

/** Syntax only: scheme, no credentials, a host. No DNS. */
export function parseTargetUrl(raw: string): URL {
  if (raw.length > MAX_URL_LENGTH)
    throw new TargetRefusedError(`URL is longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetRefusedError("URL is not a valid absolute URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TargetRefusedError("URL must use http or https");
  }
  // Credentials in the URL would be listed back by GET /webhooks; the signature authenticates us.
  if (url.username || url.password) throw new TargetRefusedError("URL must not contain credentials");
  if (!url.hostname) throw new TargetRefusedError("URL must name a host");
  return url;
}

const bare = (hostname: string) =>
  hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;

/**
 * Resolves the target's host and refuses it unless every address is publicly routable
 * (or private targets are allowed). The caller must connect to the returned addresses only —
 * see pinnedLookup — so a DNS answer that changes after this check is never used.
 */
export async function vetTarget(raw: string, opts: TVetOptions): Promise<TVettedTarget> {
  const url = parseTargetUrl(raw);
  const hostname = bare(url.hostname);
  let addresses: TResolvedAddress[];
  const literal = isIP(hostname);
  if (literal) {
    addresses = [{ address: hostname, family: literal === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await resolveWithin(opts.resolve ?? systemResolver, hostname, opts.timeoutMs);
    } catch (err) {
      if (err instanceof TargetRefusedError) throw err;
      throw new TargetRefusedError(`host ${hostname} could not be resolved`);
    }
    if (addresses.length === 0) throw new TargetRefusedError(`host ${hostname} could not be resolved`);
  }
  if (!opts.allowPrivateTargets) {
    // One private answer is enough to refuse: the connection could be steered to any of them.
    for (const a of addresses) {
      const cls = classifyAddress(a.address);
      if (cls === "public") continue;
      // A literal is the caller's own text and may be named; what one of our names resolves to
      // (or which kind of internal address it is) would map our network for them, so it is not.
      throw new TargetRefusedError(
        literal
          ? `${hostname} is a ${cls} address; only public addresses can be reached`
          : `host ${hostname} does not resolve to a public address`,
      );
    }
  }
  return { url, hostname, addresses };
}

/** A `lookup` for node:http(s) that answers only with the vetted addresses. */
export function pinnedLookup(addresses: TResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const family = options.family === "IPv4" ? 4 : options.family === "IPv6" ? 6 : options.family;
    const usable = family ? addresses.filter((a) => a.family === family) : addresses;
    const first = usable[0];
    if (!first) {
      const err: NodeJS.ErrnoException = new Error("no vetted address of the requested family");
      err.code = "ENOTFOUND";
      callback(err, "", undefined);
      return;
    }
    if (options.all) callback(null, usable);
    else callback(null, first.address, first.family);
  };
}
