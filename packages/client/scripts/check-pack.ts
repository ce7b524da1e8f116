// `pnpm --filter @posture/client check-pack`: the package as a consumer gets it. Packs it (the
// prepack script builds dist/), installs the tarball into an empty directory outside the workspace
// beside only @trpc/client, @trpc/server (its peer), typescript and expect-type — from the local
// store, nothing downloaded — then typechecks this package's own consumer example and type tests
// against the installed package (no gateway, no workspace) and imports it in Node.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
// The consumer's other packages are the workspace's own installed copies (the store's files), as
// directories: none has dependencies of its own, so the install needs no registry at all.
const require = createRequire(join(ROOT, "package.json"));
const copyOf = (name: string, from = require) =>
  `file:${realpathSync(dirname(from.resolve(`${name}/package.json`)))}`;
const CONSUMER_DEPENDENCIES = {
  "@trpc/client": copyOf("@trpc/client"),
  "@trpc/server": copyOf("@trpc/server"),
  typescript: copyOf("typescript"),
  // vitest's expectTypeOf is expect-type's: the type tests run with it unchanged.
  "expect-type": copyOf("expect-type", createRequire(require.resolve("vitest/package.json"))),
};

function run(cmd: string, args: string[], cwd: string): string {
  try {
    return execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `${cmd} ${args.join(" ")} failed in ${cwd}:\n${e.stdout ?? ""}${e.stderr ?? ""}${e.message}`,
    );
  }
}

/** A source file of this package as a consumer would write it: importing the package by name. */
function asConsumer(file: string): string {
  return readFileSync(join(ROOT, "src", file), "utf8")
    .replace(/from "\.\/index"/g, 'from "@posture/client"')
    .replace(
      /import \{ describe, expectTypeOf, it \} from "vitest";/,
      'import { expectTypeOf } from "expect-type";\n' +
        "const describe = (_: string, body: () => void) => body();\nconst it = describe;",
    );
}

export function checkPack(): { dir: string; tarball: string } {
  const dir = mkdtempSync(join(tmpdir(), "posture-client-pack-"));
  run("pnpm", ["pack", "--pack-destination", dir], ROOT);
  const tarball = readdirSync(dir).find((f) => f.endsWith(".tgz"));
  if (!tarball) throw new Error("pnpm pack wrote no tarball");

  const manifest = JSON.parse(run("tar", ["-xzOf", join(dir, tarball), "package/package.json"], dir)) as {
    dependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
    exports?: unknown;
    types?: string;
  };
  const runtime = { ...manifest.dependencies, ...manifest.peerDependencies };
  const workspace = Object.entries(runtime).filter(
    ([name, v]) => name.startsWith("@posture/") || v.startsWith("workspace:"),
  );
  if (manifest.dependencies && Object.keys(manifest.dependencies).length > 0)
    throw new Error(`the packed package has dependencies: ${JSON.stringify(manifest.dependencies)}`);
  if (workspace.length > 0)
    throw new Error(`the packed package needs the workspace: ${JSON.stringify(workspace)}`);
  if (
    !JSON.stringify(manifest.exports).includes("./dist/index.d.ts") ||
    manifest.types !== "./dist/index.d.ts"
  )
    throw new Error(`the packed package does not point at dist/: ${JSON.stringify(manifest.exports)}`);

  const consumer = join(dir, "consumer");
  run("mkdir", ["-p", consumer], dir);
  writeFileSync(
    join(consumer, "package.json"),
    JSON.stringify(
      {
        name: "posture-client-consumer",
        private: true,
        type: "module",
        dependencies: {
          "@posture/client": `file:../${tarball}`,
          ...CONSUMER_DEPENDENCIES,
        },
      },
      null,
      2,
    ),
  );
  writeFileSync(
    join(consumer, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2023",
        // A browser's; ESNext.Disposable is what @trpc/server's own declarations need.
        lib: ["ES2023", "ESNext.Disposable", "DOM", "DOM.Iterable"],
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        noUncheckedIndexedAccess: true,
        // The package's own declarations are checked too: a name it cannot resolve is an error.
        skipLibCheck: false,
        types: [],
        noEmit: true,
      },
      include: ["*.ts"],
    }),
  );
  writeFileSync(join(consumer, "consumer-example.ts"), asConsumer("consumer-example.ts"));
  writeFileSync(join(consumer, "types.test.ts"), asConsumer("types.test.ts"));
  writeFileSync(
    join(consumer, "runtime.mjs"),
    `import * as client from "@posture/client";
const c = client.createPostureClient({ url: "http://localhost:3000" });
if (typeof c.findings.list.query !== "function" || client.trpcEndpoint("http://x") !== "http://x/trpc")
  throw new Error("@posture/client did not load");
console.log(Object.keys(client).sort().join(","));
`,
  );

  run(
    "pnpm",
    ["install", "--offline", "--ignore-workspace", "--config.auto-install-peers=false", "--reporter=silent"],
    consumer,
  );
  run(join(consumer, "node_modules", ".bin", "tsc"), ["-p", "."], consumer);
  run("node", ["runtime.mjs"], consumer);
  return { dir, tarball };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { dir, tarball } = checkPack();
  console.log(`@posture/client: ${tarball} installs alone and typechecks its consumer (${dir})`);
  if (!process.env.KEEP_PACK_DIR) rmSync(dir, { recursive: true, force: true });
}
