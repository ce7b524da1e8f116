/**
 * `pnpm --filter @posture/sdk generate`: writes the OpenAPI document (built from the routers, no
 * server started) to packages/sdk/openapi.json and its openapi-typescript types to
 * packages/sdk/src/schema.ts. `src/sdk-document.test.ts` fails when either is stale.
 */
import { writeFileSync } from "node:fs";
import { buildOpenApiDocument } from "../openapi";
import {
  DOCUMENT_FILE,
  DOCUMENT_SERVER,
  renderSdkFiles,
  SCHEMA_FILE,
} from "../../../../packages/sdk/scripts/render";

const { json, types } = await renderSdkFiles(
  buildOpenApiDocument(DOCUMENT_SERVER) as unknown as Record<string, unknown>,
);
writeFileSync(DOCUMENT_FILE, json);
writeFileSync(SCHEMA_FILE, types);
console.log(`wrote ${DOCUMENT_FILE} and ${SCHEMA_FILE}`);
