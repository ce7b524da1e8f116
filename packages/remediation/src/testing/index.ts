export {
  createFakeSource,
  createFakeWriter,
  GOOGLE_ERRORS,
  type TFakeSource,
  type TFakeWriter,
  type TScriptedFailure,
  type TWriterCall,
} from "./fake-writer";
