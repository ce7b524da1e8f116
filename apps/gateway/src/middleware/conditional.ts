import { createHash } from "node:crypto";
import type { NextFunction, Request, Response } from "express";
import { rateLimitHeaders, type RateLimits } from "@posture/platform";
import type { ReadCache } from "../read-cache";
import type { TReadCacheSlot } from "./read-cache";
import { isDocsRequest } from "./access";

/** What a JSON GET answers with (and a 304 keeps): revalidate every time, never in a shared cache. */
export const JSON_GET_CACHE_CONTROL = "private, no-cache";

const JSON_TYPE = /^application\/json\s*(;|$)/i;
const ENTITY_TAG = /(?:W\/)?"([^"]*)"/g;

/** A strong entity tag over the identity (uncompressed) body: SHA-1, base64url. */
export function entityTag(body: Buffer | string): string {
  return `"${createHash("sha1").update(body).digest("base64url")}"`;
}

/**
 * RFC 9110 §13.1.2: `*` matches any current representation; otherwise a comma-separated list of
 * entity tags compared weakly (a `W/` prefix on either side is ignored). Anything that is not a
 * quoted tag is skipped, so a malformed header never matches (and is never an error).
 */
export function noneMatch(header: string | undefined, tag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  const opaque = tag.startsWith("W/") ? tag.slice(2) : tag;
  for (const m of header.matchAll(ENTITY_TAG)) if (`"${m[1]}"` === opaque) return true;
  return false;
}

/** Adds a field to Vary unless it (or `*`) is there already. */
function addVary(res: Response, field: string): void {
  const current = res.getHeader("Vary");
  const list = Array.isArray(current) ? current.join(",") : String(current ?? "");
  const names = list
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (names.includes("*") || names.includes(field.toLowerCase())) return;
  res.setHeader("Vary", names.length > 0 ? `${list}, ${field}` : field);
}

type TChunk = Buffer | string | Uint8Array;

/** The validator and caching headers of every tagged JSON answer, fresh or from the read cache. */
export function setValidators(res: Response, tag: string): void {
  res.setHeader("ETag", tag);
  res.setHeader("Cache-Control", JSON_GET_CACHE_CONTROL);
  addVary(res, "Accept-Encoding");
}

/**
 * Turns the answer into a 304: the validators and caching headers stay, the representation's own
 * do not, and the points the limiter charged on the way in are given back.
 */
export function notModified(req: Request, res: Response, limits: RateLimits): void {
  res.statusCode = 304;
  res.removeHeader("Content-Type");
  res.removeHeader("Content-Length");
  if (req.rateDecision) {
    const refunded = limits.refund(req.rateDecision);
    req.rateDecision = refunded;
    const headers = rateLimitHeaders(refunded);
    res.setHeader("RateLimit", headers.RateLimit ?? "");
  }
}

/** Headers every answer gets on its way (set before the read cache looks, or after it): not kept. */
const NOT_KEPT = new Set(["etag", "cache-control", "vary", "content-length", "content-encoding"]);

/**
 * Keeps a 200 JSON answer in the read cache under the epoch its request saw before it read,
 * with the headers its procedure set (a Link, a Deprecation); never one that sets a cookie.
 */
function keep(cache: ReadCache, slot: TReadCacheSlot, res: Response, body: Buffer, tag: string): void {
  if (res.hasHeader("Set-Cookie")) return;
  const headers: Array<readonly [string, string | string[]]> = [];
  for (const name of res.getHeaderNames()) {
    if (slot.baseline.has(name) || NOT_KEPT.has(name)) continue;
    const value = res.getHeader(name);
    if (value !== undefined) headers.push([name, typeof value === "number" ? String(value) : value]);
  }
  cache.set(slot.key, { epoch: slot.epoch, storedAt: slot.at, body, tag, headers });
}

/** tRPC's streamed batches must leave part by part: never held, never tagged. */
export const streamed = (req: Request) =>
  /(^|,)\s*application\/jsonl\s*(;|,|$)/i.test(`${req.get("trpc-accept") ?? ""},${req.get("accept") ?? ""}`);

/**
 * Conditional requests on every JSON GET under `/api` and `/trpc` (the precompiled REST
 * dispatcher, trpc-to-openapi and tRPC alike, whatever writes the body): the response's body is
 * held until it ends — `res.end(body)` from the REST paths, `res.write` chunks then `res.end()`
 * from tRPC — and, when it is a 200 `application/json`, it gets a strong `ETag` (the SHA-1 of the
 * identity body, computed once), `Cache-Control: private, no-cache` and `Vary: Accept-Encoding`.
 * When `If-None-Match` matches, the answer is 304 with those headers and no body, and the points
 * the limiter charged on the way in are given back (`RateLimits.refund`): a 304 is not counted.
 *
 * Mounted after compression, so the tag is of the identity body and compression sees the final
 * body (or a body-less 304, which it leaves alone). Anything else — another status, another
 * content type (downloads, exports, event streams, tRPC's `application/jsonl` batches), a body
 * already being streamed, the API reference (its own public caching, docs-page.ts) — passes
 * through as written, as soon as that is known.
 */
export function conditionalGet(limits: RateLimits, cache?: ReadCache) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.method !== "GET" || isDocsRequest(req) || streamed(req)) return next();
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    const held: Buffer[] = [];
    let decided: boolean | undefined;

    const eligible = (): boolean => {
      if (decided === undefined) {
        decided =
          !res.headersSent &&
          res.statusCode === 200 &&
          JSON_TYPE.test(String(res.getHeader("Content-Type") ?? "")) &&
          // tRPC's streamed batch (httpBatchStreamLink) says application/json but streams.
          res.getHeader("Transfer-Encoding") === undefined;
        if (!decided) {
          res.write = write as Response["write"];
          res.end = end as Response["end"];
        }
      }
      return decided;
    };
    const toBuffer = (chunk: TChunk, encoding?: unknown): Buffer =>
      typeof chunk === "string"
        ? Buffer.from(chunk, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8")
        : Buffer.isBuffer(chunk)
          ? chunk
          : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);

    res.write = ((chunk: TChunk, ...rest: unknown[]) => {
      if (!eligible()) return write(chunk, ...rest);
      held.push(toBuffer(chunk, rest[0]));
      const callback = rest.find((r) => typeof r === "function") as (() => void) | undefined;
      if (callback) process.nextTick(callback);
      return true;
    }) as Response["write"];

    res.end = ((...args: unknown[]) => {
      if (!eligible()) return end(...args);
      const [first, second] = args;
      const callback = args.find((a) => typeof a === "function") as (() => void) | undefined;
      if (first !== undefined && first !== null && typeof first !== "function")
        held.push(toBuffer(first as TChunk, second));
      res.write = write as Response["write"];
      res.end = end as Response["end"];
      const body = held.length === 1 ? (held[0] as Buffer) : Buffer.concat(held);
      const tag = entityTag(body);
      if (cache && req.readCacheSlot) keep(cache, req.readCacheSlot, res, body, tag);
      setValidators(res, tag);
      if (!noneMatch(req.get("if-none-match"), tag)) {
        res.setHeader("Content-Length", body.length);
        return callback ? end(body, callback) : end(body);
      }
      notModified(req, res, limits);
      return callback ? end(callback) : end();
    }) as Response["end"];
    next();
  };
}
