// Shared with the other writers of findings (sharing approvals, trusted domains), which take the
// same "findings" lock as the scan pipeline: see packages/db/src/locks.ts.
export { lockOrg } from "@posture/db";
