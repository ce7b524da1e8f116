// The one word list lives in @posture/db (SENSITIVE_WORDS), shared with the resource store.
export { sensitiveTermIn } from "@posture/db";
