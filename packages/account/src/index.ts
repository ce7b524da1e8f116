export { accountRouter } from "./router";
export { hashPassword, legacyScryptHash, verifyPassword } from "./services/passwords";
export { createOrganization, setOrganizationPlan } from "./services/organizations";
export { createUser } from "./services/users";
export { createApiKeyFor } from "./services/api-keys";
export { seedDemoIfEmpty, type TDemoSeed } from "./services/demo";
export { verifyAudit, type TAuditVerifyResult, type TAuditBreak } from "./services/verify-audit";
export { drainIdle, drainSignInFailures } from "./services/sign-in-failures";
export { signIn as signInWithPassword } from "./services/auth";
