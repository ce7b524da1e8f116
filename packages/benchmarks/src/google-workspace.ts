import type { TTenantCheck } from "./types";

/** CIS Google Workspace Foundations Benchmark checks, over the settings of `google/settings.ts`. */
export const GOOGLE_WORKSPACE_CHECKS: readonly TTenantCheck[] = [];
