import type { TActivityEvent } from "../types";

/**
 * Microsoft 365 activity from the Office 365 Management Activity API (Audit.SharePoint,
 * Audit.AzureActiveDirectory, Audit.General), mapped into the activity kinds.
 */
export async function* managementActivity(_since: Date): AsyncGenerator<TActivityEvent> {}
