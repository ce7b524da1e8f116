// `pnpm --filter @posture/client build:package`: the publishable package in dist/ — the client's JavaScript,
// its declarations, and AppRouter as a declaration that stands alone (dist/router.d.ts), so that
// a consumer needs only @trpc/client (and the @trpc/server types it brings), never the gateway.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { appRouterDeclaration } from "./app-router-types";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DIST = `${ROOT}dist/`;
const ROUTER = "router";

/** Relative specifiers get their `.js` (Node's ESM resolution wants it); the gateway becomes the router file. */
function rewriteSpecifiers(text: string): string {
  return text
    .replace(/(from\s+|import\()(["'])(\.\.?\/[^"']+?)(?<!\.js)\2/g, "$1$2$3.js$2")
    .replace(/(["'])@posture\/gateway\1/g, `"./${ROUTER}.js"`);
}

export function build(): { procedures: number; files: string[] } {
  rmSync(DIST, { recursive: true, force: true });
  mkdirSync(DIST, { recursive: true });

  const router = appRouterDeclaration(`${ROOT}tsconfig.json`);
  if (router.warnings.length > 0)
    throw new Error(`AppRouter has types a consumer cannot read:\n${router.warnings.join("\n")}`);
  writeFileSync(`${DIST}${ROUTER}.d.ts`, router.source);

  // The client's own files, compiled against that declaration rather than the gateway: what is
  // emitted is exactly what a consumer will read, and a router type @trpc/client rejects fails here.
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2023,
    lib: ["lib.es2023.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true,
    noUncheckedIndexedAccess: true,
    verbatimModuleSyntax: true,
    skipLibCheck: true,
    types: [],
    declaration: true,
    outDir: DIST,
    rootDir: `${ROOT}src`,
    baseUrl: ROOT,
    paths: { "@posture/gateway": [`dist/${ROUTER}.d.ts`] },
  };
  const program = ts.createProgram([`${ROOT}src/index.ts`], options);
  const result = program.emit();
  const errors = [...ts.getPreEmitDiagnostics(program), ...result.diagnostics].filter(
    (d) => d.category === ts.DiagnosticCategory.Error,
  );
  if (errors.length > 0)
    throw new Error(
      ts.formatDiagnostics(errors, {
        getCanonicalFileName: (f) => f,
        getCurrentDirectory: () => ROOT,
        getNewLine: () => "\n",
      }),
    );

  const files = readdirSync(DIST).sort();
  for (const name of files) {
    if (name === `${ROUTER}.d.ts` || !/\.(js|d\.ts)$/.test(name)) continue;
    const path = `${DIST}${name}`;
    writeFileSync(path, rewriteSpecifiers(readFileSync(path, "utf8")));
  }
  return { procedures: router.procedures, files };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { procedures, files } = build();
  console.log(
    `@posture/client: dist/ written (${files.join(", ")}); AppRouter with ${procedures} procedures`,
  );
}
