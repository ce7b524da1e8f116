import type { TTenantCheck } from "./types";

/** CIS Microsoft 365 Foundations Benchmark checks, over the settings of `microsoft/settings.ts`. */
export const MICROSOFT_365_CHECKS: readonly TTenantCheck[] = [];
