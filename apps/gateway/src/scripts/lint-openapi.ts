/**
 * `pnpm lint:openapi`: writes the OpenAPI document (built from the routers, no server started)
 * to a temporary file and lints it with Redocly (`redocly.yaml`) and Spectral (`.spectral.yaml`,
 * `spectral:oas`) from the repository root. Exits non-zero on any error of either. Both run
 * offline: their rulesets are installed with them, and telemetry and update checks are off.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildOpenApiDocument } from "../openapi";

const root = fileURLToPath(new URL("../../../../", import.meta.url));
const bin = (name: string) => join(root, "node_modules", ".bin", name);
const dir = mkdtempSync(join(tmpdir(), "openapi-"));
const file = join(dir, "openapi.json");
writeFileSync(file, JSON.stringify(buildOpenApiDocument("https://posture.example.org"), null, 2));

const env = {
  ...process.env,
  REDOCLY_TELEMETRY: "off",
  REDOCLY_SUPPRESS_UPDATE_NOTICE: "true",
  SPECTRAL_DISABLE_TELEMETRY: "true",
};
const run = (cmd: string, args: string[]) =>
  spawnSync(bin(cmd), args, { cwd: root, env, stdio: "inherit" }).status ?? 1;

let status = 0;
try {
  status |= run("redocly", ["lint", "--config", join(root, "redocly.yaml"), file]);
  status |= run("spectral", [
    "lint",
    "--ruleset",
    join(root, ".spectral.yaml"),
    "--fail-severity",
    "error",
    file,
  ]);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(status === 0 ? 0 : 1);
