#!/usr/bin/env node
// Bundles one app entry point into `dist/` with esbuild: the workspace packages (`@posture/*`)
// are compiled into the bundle, npm dependencies stay external and are imported from where pnpm
// installed them. A new workspace package therefore needs no build configuration of its own.
//
//   posture-build [--if-stale] [--quiet] [--outdir dist] src/main.ts [more entries…]
//
// `--if-stale` builds only when an input of the last build (recorded in dist/.inputs.json) is
// newer than the bundle, or the lockfile changed: `pnpm start` uses it, so a fresh clone builds
// once and later starts cost a few hundred stat calls.
import { existsSync, mkdirSync, readFileSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import * as esbuild from "esbuild";

const WORKSPACE_SCOPE = "@posture/";

/** The monorepo root: the first folder above `from` holding pnpm-workspace.yaml. */
export function workspaceRoot(from) {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "pnpm-workspace.yaml"))) return dir;
    if (dirname(dir) === dir) throw new Error(`no pnpm workspace above ${from}`);
  }
}

const toPosix = (p) => p.split(sep).join("/");
const relativeSpecifier = (fromDir, file) => {
  const rel = toPosix(relative(fromDir, file));
  return rel.startsWith(".") ? rel : `./${rel}`;
};

/**
 * npm packages stay external, but a bare specifier in the bundle would be resolved from the
 * app's folder, where pnpm only links the app's own dependencies: a package that a workspace
 * package depends on (bullmq, pglite…) would not be found. Each one is resolved where it is
 * imported, exactly as Node (and tsx) would, and written into the bundle as a path relative to
 * the output folder, so the bundle loads the very same module files the sources do.
 */
function externalNodeModules(outdir) {
  return {
    name: "external-node-modules",
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.path.startsWith(WORKSPACE_SCOPE) || args.pluginData === "resolving") return undefined;
        if (args.path.startsWith("node:")) return { path: args.path, external: true };
        const resolved = await build.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          importer: args.importer,
          pluginData: "resolving",
        });
        if (resolved.errors.length > 0) return { errors: resolved.errors };
        // A Node built-in without the `node:` prefix.
        if (resolved.external || !resolved.path.includes(`${sep}node_modules${sep}`)) {
          return resolved.external ? { path: args.path, external: true } : undefined;
        }
        return { path: relativeSpecifier(outdir, resolved.path), external: true };
      });
    },
  };
}

/**
 * `import.meta.url` of a bundled module would name the bundle, not the source file: files read
 * relative to a module (the migrations folder, assets) would be looked for beside `dist/`. Each
 * workspace module's `import.meta.url` (and `dirname`/`filename`) is replaced by its own
 * source file's URL, computed relative to the bundle so that the folder can move.
 */
function sourceRelativeImportMeta(outdir) {
  return {
    name: "source-relative-import-meta",
    setup(build) {
      build.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, (args) => {
        if (args.path.includes(`${sep}node_modules${sep}`)) return undefined;
        const source = readFileSync(args.path, "utf8");
        if (!source.includes("import.meta.")) return undefined;
        const rel = JSON.stringify(relativeSpecifier(outdir, args.path));
        const url = `new URL(${rel}, import.meta.url).href`;
        const file = `__postureFileURLToPath(${url})`;
        const contents =
          `import { fileURLToPath as __postureFileURLToPath } from "node:url";\n` +
          source
            .replaceAll("import.meta.url", url)
            .replaceAll("import.meta.filename", file)
            .replaceAll("import.meta.dirname", `__postureDirname(${file})`)
            .replace(
              /^/,
              source.includes("import.meta.dirname")
                ? `import { dirname as __postureDirname } from "node:path";\n`
                : "",
            );
        const loader = args.path.endsWith("x") ? "tsx" : args.path.match(/\.[cm]?js$/) ? "js" : "ts";
        return { contents, loader, resolveDir: dirname(args.path) };
      });
    },
  };
}

const INPUTS_FILE = ".inputs.json";

function isStale(appDir, outdir, entries) {
  const recordFile = join(outdir, INPUTS_FILE);
  if (!existsSync(recordFile)) return true;
  let record;
  try {
    record = JSON.parse(readFileSync(recordFile, "utf8"));
  } catch {
    return true;
  }
  if (JSON.stringify(record.entries) !== JSON.stringify(entries)) return true;
  const builtAt = record.builtAt;
  const root = workspaceRoot(appDir);
  const watched = [
    ...record.inputs.map((f) => resolve(root, f)),
    join(root, "pnpm-lock.yaml"),
    new URL(import.meta.url).pathname,
  ];
  for (const file of watched) {
    try {
      if (statSync(file).mtimeMs > builtAt) return true;
    } catch {
      return true; // an input was deleted or moved
    }
  }
  for (const out of record.outputs) if (!existsSync(resolve(root, out))) return true;
  return false;
}

/**
 * Builds `entries` (paths relative to `appDir`) into `outdir`; returns the output files. Each
 * entry lands in `outdir` at its path below `outbase`: entries must sit directly in `outbase`,
 * since imports of node_modules are written relative to `outdir`.
 */
export async function bundle({
  appDir = process.cwd(),
  entries,
  outdir = "dist",
  outbase = "src",
  ifStale = false,
  quiet = false,
}) {
  const absOut = resolve(appDir, outdir);
  if (ifStale && !isStale(appDir, absOut, entries)) return { built: false };
  const started = Date.now();
  mkdirSync(absOut, { recursive: true });
  const result = await esbuild.build({
    absWorkingDir: appDir,
    entryPoints: entries,
    outdir: absOut,
    outbase,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    sourcemap: "linked",
    metafile: true,
    logLevel: quiet ? "error" : "warning",
    plugins: [externalNodeModules(absOut), sourceRelativeImportMeta(absOut)],
  });
  const root = workspaceRoot(appDir);
  const inputs = Object.keys(result.metafile.inputs)
    .filter((f) => !f.includes("node_modules/") && !f.startsWith("<"))
    .map((f) => toPosix(relative(root, resolve(appDir, f))));
  const outputs = Object.keys(result.metafile.outputs).map((f) =>
    toPosix(relative(root, resolve(appDir, f))),
  );
  writeFileSync(
    join(absOut, INPUTS_FILE),
    JSON.stringify({ entries, builtAt: started, inputs, outputs }, null, 1),
  );
  if (!quiet)
    process.stderr.write(
      `built ${outputs.filter((o) => o.endsWith(".js")).join(", ")} (${inputs.length} modules, ${Date.now() - started} ms)\n`,
    );
  return { built: true, outputs };
}

const isMain =
  process.argv[1] !== undefined &&
  pathToFileURL(realpathSync(resolve(process.argv[1]))).href === import.meta.url;
if (isMain) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      "if-stale": { type: "boolean", default: false },
      quiet: { type: "boolean", default: false },
      outdir: { type: "string", default: "dist" },
    },
  });
  if (positionals.length === 0) {
    process.stderr.write("usage: posture-build [--if-stale] [--quiet] [--outdir dist] src/main.ts …\n");
    process.exit(2);
  }
  try {
    await bundle({
      entries: positionals,
      outdir: values.outdir,
      ifStale: values["if-stale"],
      quiet: values.quiet,
    });
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}
