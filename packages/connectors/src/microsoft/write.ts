import type { THttpOptions } from "../http/client";
import type { TMicrosoftCredentials } from "./auth";
import type { TSourceWriter } from "../write";
import type { TMicrosoftConfig, TMicrosoftEndpoints } from "./adapter";

/**
 * Microsoft 365 writes through Graph v1.0: driveItem permission delete / update, invite (undo),
 * oauth2PermissionGrant delete / create, appRoleAssignment delete.
 */
export function createMicrosoft365Writer(_opts: {
  credentials: TMicrosoftCredentials;
  config?: TMicrosoftConfig;
  endpoints?: TMicrosoftEndpoints;
  http?: THttpOptions;
}): TSourceWriter {
  throw new Error("createMicrosoft365Writer: not built yet (issue 19, Microsoft writer)");
}
