import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "./openapi";
import {
  DOCUMENT_FILE,
  DOCUMENT_SERVER,
  renderSdkFiles,
  SCHEMA_FILE,
} from "../../../packages/sdk/scripts/render";

// The CI gate of the SDK: its committed OpenAPI document and generated types are what the routers
// produce now. A procedure added or changed without regenerating fails here.
const STALE = "packages/sdk is stale: run `pnpm --filter @posture/sdk generate` and commit the result";

describe("packages/sdk generated files", () => {
  it("openapi.json and src/schema.ts match the routers' document", { timeout: 180_000 }, async () => {
    const { json, types } = await renderSdkFiles(
      buildOpenApiDocument(DOCUMENT_SERVER) as unknown as Record<string, unknown>,
    );
    const committedJson = readFileSync(DOCUMENT_FILE, "utf8");
    const committedTypes = readFileSync(SCHEMA_FILE, "utf8");
    // Compared as booleans first, so a failure prints the instruction rather than a 1 MB diff.
    expect(committedJson === json, `${STALE} (openapi.json differs)`).toBe(true);
    expect(committedTypes === types, `${STALE} (src/schema.ts differs)`).toBe(true);
  });
});
