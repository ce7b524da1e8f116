import { procedure, scopeOf } from "@posture/platform";
import { guardedFetcher } from "../services/logo";
import { updatePartnerSettings } from "../services/settings";
import { updateSettingsMeta, ZUpdateSettingsInput, ZUpdateSettingsOutput } from "./update-settings.types";

export const updateSettings = procedure({ auth: "partner", plan: "enterprise", role: "ADMIN" })
  .meta(updateSettingsMeta)
  .input(ZUpdateSettingsInput)
  .output(ZUpdateSettingsOutput)
  .mutation(({ ctx, input }) =>
    updatePartnerSettings(ctx.db, {
      ...scopeOf(ctx.principal),
      patch: input,
      fetcher: guardedFetcher({ allowPrivateTargets: ctx.runtime.webhookAllowPrivateTargets }),
    }),
  );
