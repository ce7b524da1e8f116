export { createScriptedTenant, type TScriptedSeed, type TScriptedTenant } from "./scripted-source";
