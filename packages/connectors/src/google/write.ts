import type { THttpOptions } from "../http/client";
import type { TGoogleCredentials } from "./auth";
import type { TSourceWriter } from "../write";
import type { TGoogleConfig, TGoogleEndpoints } from "./adapter";

/**
 * Google Workspace writes: Drive v3 permissions.delete / update / create (supportsAllDrives,
 * useDomainAdminAccess for shared drives; the file's owner impersonated for My Drive files) and
 * Admin SDK Directory tokens.delete.
 */
export function createGoogleWorkspaceWriter(_opts: {
  credentials: TGoogleCredentials;
  config?: TGoogleConfig;
  endpoints?: TGoogleEndpoints;
  http?: THttpOptions;
}): TSourceWriter {
  throw new Error("createGoogleWorkspaceWriter: not built yet (issue 19, Google writer)");
}
