import type { NextFunction, Request, Response } from "express";
import { metrics, routeCatalog, type RateLimits, type TDataEpoch } from "@posture/platform";
import type { ReadCache, TEncoding } from "../read-cache";
import type { AppRouter } from "../router";
import { isDocsRequest } from "./access";
import { noneMatch, notModified, setValidators, streamed } from "./conditional";

/** Where a missed read's answer is to be kept (conditional.ts keeps it once the body is known). */
export type TReadCacheSlot = {
  key: string;
  /** The data epoch read before the request ran: the answer is no older than it. */
  epoch: TDataEpoch;
  at: number;
  /** The response's header names when the cache looked (security, rate limit): not the answer's own. */
  baseline: ReadonlySet<string>;
};

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace -- Express's own augmentation point
  namespace Express {
    // eslint-disable-next-line @typescript-eslint/consistent-type-definitions -- declaration merging needs an interface
    interface Request {
      /** The organization's data epoch read with the rate limit (access.ts); null: do not cache. */
      dataEpoch?: TDataEpoch | null;
      readCacheSlot?: TReadCacheSlot;
    }
  }
}

/** What the compression middleware would pick for this Accept-Encoding (brotli first on a tie). */
export function preferredEncoding(header: string | undefined): TEncoding | undefined {
  if (!header) return undefined;
  let best: TEncoding | undefined;
  let bestQ = 0;
  for (const part of header.split(",")) {
    const [name = "", ...params] = part.trim().toLowerCase().split(";");
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!(q > 0)) continue;
    const candidates: TEncoding[] =
      name === "*" ? ["br", "gzip"] : name === "br" || name === "gzip" ? [name] : [];
    for (const c of candidates) {
      if (q > bestQ || (q === bestQ && c === "br" && best !== "br")) {
        best = c;
        bestQ = q;
      }
    }
  }
  return best;
}

/** The compression middleware's threshold (app.ts): smaller answers leave as they are. */
const COMPRESS_FROM_BYTES = 1024;

/**
 * The GETs whose answers are never kept (`meta.readCache: false`), by REST path and tRPC key.
 * A path that merely looks like one of them is not kept either: that errs on the safe side.
 */
function uncacheable(router: AppRouter): (req: Request) => boolean {
  const entries = routeCatalog(router).entries.filter((e) => e.meta?.readCache === false);
  const keys = new Set(entries.map((e) => e.key));
  const patterns = entries.flatMap((e) => (e.rest ? [e.rest.pattern] : []));
  return (req) => {
    let path: string;
    try {
      path = decodeURIComponent(req.path);
    } catch {
      return true;
    }
    if (req.baseUrl === "/trpc")
      return path
        .slice(1)
        .split(",")
        .some((key) => keys.has(key));
    const normalised = `/${path.replace(/^\/|\/$/g, "")}`;
    return patterns.some((p) => p.test(normalised));
  };
}

/**
 * The read cache's side of a JSON GET under /api and /trpc (issue 34), after the access
 * middleware has read the organization's data epoch in the rate limiter's round trip: an answer
 * kept for this credential and request at the current epoch is served from memory — its tag
 * checked against If-None-Match first (a 304, not charged, as conditional.ts does), its body in
 * the encoding the client takes, compressed once — and any other is marked to be kept once read.
 * While a write of the organization is in progress, or when the epoch is unknown (Redis away),
 * nothing is served or kept. The key is the credential (so the user an answer may depend on is the
 * same), what the guards check (plan, role, scopes, the credential epoch), Accept, and the path
 * and query.
 */
export function readCacheLookup(cache: ReadCache, router: AppRouter, limits: RateLimits) {
  const excluded = uncacheable(router);
  return (req: Request, res: Response, next: NextFunction): void => {
    req.readCacheSlot = undefined;
    const principal = req.principal;
    if (!cache.enabled || req.method !== "GET" || !principal || isDocsRequest(req) || streamed(req))
      return next();
    if (!req.dataEpoch || excluded(req)) {
      metrics.readCache.inc({ outcome: "bypass" });
      return next();
    }
    // Everything the procedure's guards read (plan, role, scopes, partner) and the credential
    // epoch they were checked at: a hit skips the guards, so an answer is kept per all of them;
    // and Accept, which some paths negotiate (a download's JSON view, downloads.ts).
    const key = `${principal.org.id}\n${principal.kind}:${principal.credentialId}\n${req.credentialEpoch}\n${
      principal.org.plan
    }:${principal.org.isPartner}:${principal.role}:${principal.scopes?.join(",") ?? "*"}\n${
      req.get("accept") ?? ""
    }\n${req.baseUrl}${req.url}`;
    const now = Date.now();
    const hit = cache.get(key, req.dataEpoch, now);
    if (!hit) {
      metrics.readCache.inc({ outcome: "miss" });
      req.readCacheSlot = { key, epoch: req.dataEpoch, at: now, baseline: new Set(res.getHeaderNames()) };
      return next();
    }
    metrics.readCache.inc({ outcome: "hit" });
    res.statusCode = 200;
    for (const [name, value] of hit.headers) res.setHeader(name, value);
    setValidators(res, hit.tag);
    if (noneMatch(req.get("if-none-match"), hit.tag)) {
      notModified(req, res, limits);
      res.end();
      return;
    }
    const encoding =
      hit.body.length >= COMPRESS_FROM_BYTES ? preferredEncoding(req.get("accept-encoding")) : undefined;
    const body = encoding ? cache.encoded(key, hit, encoding) : hit.body;
    // Already encoded: the compression middleware leaves it as it is.
    if (encoding) res.setHeader("Content-Encoding", encoding);
    res.setHeader("Content-Length", body.length);
    res.end(body);
  };
}
