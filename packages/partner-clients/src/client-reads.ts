import type { TClientReads } from "@posture/partner";

// Filled in by issue 17, item 1.
export const clientReads: TClientReads = {};
