import type { TFakeRequest, TFakeResponse } from "./fake-server";

/** The fake tenant's settings as Graph's policy and admin resources would hold them. */
export type TGraphSettingsFixture = Record<string, never>;

/** The fake Graph's routes for tenant settings; undefined for a path that is not one of them. */
export function graphSettingsRoute(
  _fixture: TGraphSettingsFixture | undefined,
  _req: TFakeRequest,
): TFakeResponse | undefined {
  return undefined;
}
