import type { TFakeRequest, TFakeResponse } from "./fake-server";

/** The fake tenant's settings as the Cloud Identity Policy API and the Directory would hold them. */
export type TGoogleSettingsFixture = Record<string, never>;

/** The fake Google's routes for tenant settings; undefined for a path that is not one of them. */
export function googleSettingsRoute(
  _fixture: TGoogleSettingsFixture | undefined,
  _req: TFakeRequest,
): TFakeResponse | undefined {
  return undefined;
}
