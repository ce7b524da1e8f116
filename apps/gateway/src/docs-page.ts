import { statSync, createReadStream } from "node:fs";
import { Router, type Request, type Response } from "express";
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

export function docsRoutes(): Router {
  const r = Router();
  const bundleSize = statSync(BUNDLE_FILE).size;
  r.get("/docs", (_req: Request, res: Response) => {
    res.setHeader("Content-Security-Policy", DOCS_CSP);
    res.type("text/html").send(PAGE);
  });
  r.get(DOCS_INIT_PATH, (_req: Request, res: Response) => {
    res.setHeader("Cache-Control", "no-cache");
    res.type("text/javascript").send(INIT_SCRIPT);
  });
  r.get(DOCS_BUNDLE_PATH, (_req: Request, res: Response) => {
    res.setHeader("Cache-Control", "public, max-age=31536000, immutable");
    res.setHeader("Content-Length", bundleSize);
    res.type("text/javascript");
    createReadStream(BUNDLE_FILE).pipe(res);
  });
  return r;
}
