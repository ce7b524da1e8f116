// Writes docs/tenant-checks.md from the catalogs: `pnpm --filter @posture/benchmarks docs`.
import { writeFile } from "node:fs/promises";
import { generateTenantChecksDoc, TENANT_CHECKS_DOC } from "../src/docs-file";

await writeFile(TENANT_CHECKS_DOC, await generateTenantChecksDoc());
console.log(`wrote ${TENANT_CHECKS_DOC}`);
