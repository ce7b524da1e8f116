import { readFileSync } from "node:fs";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { TypePrinter } from "../scripts/app-router-types";

// The published package stands alone: its manifest names no workspace package a consumer would
// install, and the AppRouter declaration it ships writes server types out instead of naming them.
// (`pnpm --filter @posture/client check-pack` installs the real tarball and typechecks against it.)

type TManifest = {
  private?: boolean;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  files?: string[];
  publishConfig?: { exports?: Record<string, unknown>; types?: string };
};

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as TManifest;

describe("@posture/client's manifest", () => {
  it("has only @trpc peers, no dependencies, and publishes dist/", () => {
    expect(pkg.private).toBeUndefined();
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(Object.keys(pkg.peerDependencies ?? {}).sort()).toEqual(["@trpc/client", "@trpc/server"]);
    expect(pkg.files).toContain("dist");
    expect(pkg.publishConfig?.types).toBe("./dist/index.d.ts");
    expect(pkg.publishConfig?.exports?.["."]).toEqual({
      types: "./dist/index.d.ts",
      import: "./dist/index.js",
    });
  });
});

const FILES: Record<string, string> = {
  "/v/server.ts": `
    export type TSeverity = "HIGH" | "LOW";
    export interface TRow {
      id: string; at: Date; meta: Record<string, unknown>; tags?: string[]; ok: boolean;
      severity: TSeverity; body: Uint8Array | (() => AsyncIterable<Uint8Array>); pair: [number, string?];
    }
    export type TTree = { name: string; children: TTree[] };`,
  "/v/probe.ts": `
    import type { TRow, TTree } from "./server";
    export type Row = TRow;
    export type Tree = TTree;`,
};

function printed(name: string) {
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true,
    target: ts.ScriptTarget.ES2023,
    lib: ["lib.es2023.d.ts"],
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (file, lang, ...rest) => {
    const text = FILES[file];
    return text === undefined
      ? getSourceFile(file, lang, ...rest)
      : ts.createSourceFile(file, text, lang, true);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (file) => file in FILES || fileExists(file);
  const directoryExists = host.directoryExists?.bind(host);
  host.directoryExists = (dir) => dir === "/v" || (directoryExists?.(dir) ?? false);
  const program = ts.createProgram({ rootNames: ["/v/probe.ts"], options, host });
  const checker = program.getTypeChecker();
  const probe = program.getSourceFile("/v/probe.ts");
  const decl = probe?.statements.find(
    (s): s is ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(s) && s.name.text === name,
  );
  if (!decl) throw new Error(name);
  const printer = new TypePrinter(program, checker);
  const text = printer.print(checker.getTypeFromTypeNode(decl.type));
  // What was printed compiles alone, with nothing of the "server" in scope.
  const alone = ts.createProgram({
    rootNames: ["/v/alone.ts"],
    options,
    host: {
      ...host,
      getSourceFile: (file, lang, ...rest) =>
        file === "/v/alone.ts"
          ? ts.createSourceFile(file, `export type X = ${text};`, lang, true)
          : getSourceFile(file, lang, ...rest),
      fileExists: (file) => file === "/v/alone.ts" || fileExists(file),
    },
  });
  const errors = ts
    .getPreEmitDiagnostics(alone)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
  return { text, warnings: printer.warnings, errors };
}

describe("the AppRouter declaration's type printer", () => {
  it("writes a server package's types out in full, keeping only the standard library's names", () => {
    const { text, warnings, errors } = printed("Row");
    expect(errors, text).toEqual([]);
    expect(warnings).toEqual([]);
    expect(text).not.toMatch(/TRow|TSeverity|import\(|__type/);
    expect(text).toContain("at: Date;");
    expect(text).toContain("meta: { [key: string]: unknown; };");
    expect(text).toMatch(/tags\?: (undefined \| Array<string>|Array<string> \| undefined);/);
    expect(text).toContain("ok: boolean;");
    expect(text).toMatch(/severity: ("HIGH" \| "LOW"|"LOW" \| "HIGH");/);
    expect(text).toContain("(() => AsyncIterable<Uint8Array<");
    expect(text).toMatch(/pair: \[number, \((string \| undefined|undefined \| string)\)\?\];/);
  });

  it("refuses what it cannot write out: a recursive type becomes a warning", () => {
    const { warnings } = printed("Tree");
    expect(warnings.join("\n")).toMatch(/recursive type/);
  });
});
