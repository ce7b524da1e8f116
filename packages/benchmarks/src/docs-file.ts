import { fileURLToPath } from "node:url";
import { format, resolveConfig } from "prettier";
import { renderTenantChecksDoc } from "./docs";
import { GOOGLE_WORKSPACE_CHECKS } from "./google-workspace";
import { MICROSOFT_365_CHECKS } from "./microsoft-365";
import { GITHUB_CHECKS } from "./github";

/** Where the generated document lives, in the repository. */
export const TENANT_CHECKS_DOC = fileURLToPath(new URL("../../../docs/tenant-checks.md", import.meta.url));

/** The document as the catalogs have it now, formatted as the repository's prettier would. */
export async function generateTenantChecksDoc(): Promise<string> {
  const markdown = renderTenantChecksDoc({
    google: GOOGLE_WORKSPACE_CHECKS,
    microsoft: MICROSOFT_365_CHECKS,
    github: GITHUB_CHECKS,
  });
  const options = (await resolveConfig(TENANT_CHECKS_DOC)) ?? {};
  return format(markdown, { ...options, filepath: TENANT_CHECKS_DOC });
}
