// The offline check of an evidence package (`pnpm cli evidence:verify`): no database, no service.
export {
  verifyEvidencePackage,
  MANIFEST_FILE,
  MANIFEST_JWS_FILE,
  PACKAGE_JWKS_FILE,
  type TEvidenceVerification,
} from "./evidence-verify";
export { zipEntries, zipRead, ZipFormatError, type TZipEntry } from "./zip-reader";
