// Remediation at the source (issue 19): plan → approve → apply → undo, across the connectors'
// writers, findings, the posture engine and compliance. An orchestrating package: it may import
// domain packages; none imports it. See docs/architecture.md, "The path of a remediation".
export { remediationRouter, simulatePosture } from "./router";
export { remediationJobs, type TRemediationJobDeps } from "./jobs/module";
