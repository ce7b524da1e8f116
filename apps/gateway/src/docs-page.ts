import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { promisify } from "node:util";
import { brotliCompress, constants as zlibConstants, gzip } from "node:zlib";
import { Router, type NextFunction, type Request, type Response } from "express";
import { SCALAR_BUNDLE_FILE as BUNDLE_FILE, SCALAR_VERSION } from "@posture/api-reference";

/**
 * GET /api/docs: Scalar's API reference (`@scalar/api-reference`), rendering /api/openapi.json.
 * Its standalone bundle is served from the package's own files in node_modules: no CDN, nothing
 * fetched from the network at run time, and a CSP that allows only this origin's scripts.
 */

// Versioned URL: a new package version is a new URL, so the bundle can be cached for good.
export const DOCS_BUNDLE_PATH = `/docs/assets/scalar-api-reference-${SCALAR_VERSION}.js`;
export const DOCS_INIT_PATH = "/docs/assets/init.js";
export const DOCS_ASSET_ROUTES = [
  { path: DOCS_BUNDLE_PATH, methods: ["GET"] },
  { path: DOCS_INIT_PATH, methods: ["GET"] },
];

/**
 * What the page may do: run this origin's two scripts, fetch the document (and, from the "test
 * request" client, this API), use the inline styles the bundle injects and data: images and
 * fonts it embeds. No other origin is reachable: Scalar's telemetry and fonts are off anyway.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

// Configuration lives in a script file of ours rather than inline, so script-src needs no
// 'unsafe-inline' and no nonce. The mount point must not be `#api-reference`: the bundle
// auto-mounts an element of that id with an empty configuration of its own.
const INIT_SCRIPT = `Scalar.createApiReference("#reference", ${JSON.stringify({
  url: "/api/openapi.json",
  theme: "default",
  layout: "modern",
  withDefaultFonts: false,
  telemetry: false,
  showDeveloperTools: "never",
  agent: { disabled: true },
  mcp: { disabled: true },
  hideClientButton: false,
  documentDownloadType: "json",
  defaultOpenAllTags: false,
})});\n`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Security Posture Developer API — reference</title>
</head>
<body>
<noscript>This reference needs JavaScript. The OpenAPI document itself is at <a href="/api/openapi.json">/api/openapi.json</a>.</noscript>
<div id="reference"></div>
<script src="/api${DOCS_BUNDLE_PATH}"></script>
<script src="/api${DOCS_INIT_PATH}"></script>
</body>
</html>
`;

/**
 * How the reference is cached. The page, its configuration and the OpenAPI document change only
 * with a deployment: shared caches may keep them five minutes and revalidate with the ETag (304).
 * The bundle's URL carries its version: cached for a year, never revalidated.
 */
export const DOCS_CACHE_CONTROL = "public, max-age=300";
export const DOCS_IMMUTABLE_CACHE_CONTROL = "public, max-age=31536000, immutable";

type TEncoded = { identity: Buffer; gzip: Buffer; br: Buffer; etag: string };

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/**
 * A static body with its gzip and brotli forms, compressed once (on the libuv pool, off the
 * event loop) rather than per request: the 4 MB bundle would cost ~0.4 s of CPU each time.
 */
async function encode(identity: Buffer): Promise<TEncoded> {
  const [gz, br] = await Promise.all([
    gzipAsync(identity, { level: 9 }),
    brotliAsync(identity, {
      params: {
        [zlibConstants.BROTLI_PARAM_QUALITY]: 6,
        [zlibConstants.BROTLI_PARAM_SIZE_HINT]: identity.length,
      },
    }),
  ]);
  const etag = `"${createHash("sha256").update(identity).digest("base64url").slice(0, 27)}"`;
  return { identity, gzip: gz, br, etag };
}

/** Answers with the best encoding the client accepts; 304 when its copy is current. */
function sendEncoded(req: Request, res: Response, body: TEncoded, type: string, cacheControl: string): void {
  res.setHeader("Cache-Control", cacheControl);
  res.setHeader("ETag", body.etag);
  res.setHeader("Vary", "Accept-Encoding");
  res.type(type);
  if (req.fresh) {
    res.status(304).end();
    return;
  }
  // Brotli when accepted at all (smaller by a sixth), else gzip, else as is.
  const chosen =
    req.acceptsEncodings("br") === "br"
      ? "br"
      : req.acceptsEncodings("gzip") === "gzip"
        ? "gzip"
        : "identity";
  const bytes = body[chosen];
  if (chosen !== "identity") res.setHeader("Content-Encoding", chosen);
  res.setHeader("Content-Length", bytes.length);
  if (req.method === "HEAD") res.end();
  else res.end(bytes);
}

export function docsRoutes(): Router {
  const r = Router();
  const page = encode(Buffer.from(PAGE));
  const init = encode(Buffer.from(INIT_SCRIPT));
  let bundle: Promise<TEncoded> | undefined;
  r.get("/docs", async (req: Request, res: Response) => {
    res.setHeader("Content-Security-Policy", DOCS_CSP);
    sendEncoded(req, res, await page, "text/html; charset=utf-8", DOCS_CACHE_CONTROL);
  });
  r.get(DOCS_INIT_PATH, async (req: Request, res: Response) => {
    sendEncoded(req, res, await init, "text/javascript; charset=utf-8", DOCS_CACHE_CONTROL);
  });
  r.get(DOCS_BUNDLE_PATH, async (req: Request, res: Response) => {
    // Read and compressed on first use, then kept (about 6.5 MB in all three forms).
    bundle ??= readFile(BUNDLE_FILE).then(encode);
    sendEncoded(req, res, await bundle, "text/javascript; charset=utf-8", DOCS_IMMUTABLE_CACHE_CONTROL);
  });
  return r;
}

/**
 * GET /api/openapi.json is the reference's data: cacheable by anyone, revalidated by ETag. Set
 * here, before the route that sends it (openapi.ts); the response compression middleware
 * compresses the document itself.
 */
export function openApiCaching(document: () => { json: string }) {
  let last: { json: string; etag: string } | undefined;
  return (req: Request, res: Response, next: NextFunction): void => {
    if ((req.method !== "GET" && req.method !== "HEAD") || req.path !== "/openapi.json") return next();
    const { json } = document();
    if (last?.json !== json) {
      last = { json, etag: `"${createHash("sha256").update(json).digest("base64url").slice(0, 27)}"` };
    }
    res.setHeader("Cache-Control", DOCS_CACHE_CONTROL);
    // res.send answers 304 by itself when the request's If-None-Match names this ETag.
    res.setHeader("ETag", last.etag);
    next();
  };
}
