export { createScriptedTenant, type TScriptedSeed, type TScriptedTenant } from "./scripted-source";
export {
  applySampleChanges,
  DOMAIN,
  sampleDrive,
  sampleFile,
  sampleGrant,
  sampleSeed,
  sampleUser,
} from "./sample-tenant";
export { storeAndFindingsOf } from "./compare";
export { scanOnlyDeps } from "./scan-deps";
