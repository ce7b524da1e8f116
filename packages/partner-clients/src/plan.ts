import type { TPlanRemediation } from "@posture/partner";

// Filled in by issue 17, item 5.
export const planRemediation: TPlanRemediation = () => Promise.reject(new Error("not built yet"));
