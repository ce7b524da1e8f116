import { procedure, scopeOf } from "@posture/platform";
import { z } from "zod";
import { getExposureSettings, updateExposureSettings } from "../services/settings";
import {
  getExposureSettingsMeta,
  updateExposureSettingsMeta,
  ZExposureSettings,
  ZUpdateExposureSettings,
} from "./exposure-settings.types";

export const getSettings = procedure({ auth: "apiKey" })
  .meta(getExposureSettingsMeta)
  .input(z.void())
  .output(ZExposureSettings)
  .query(({ ctx }) => getExposureSettings(ctx.db, scopeOf(ctx.principal)));

export const updateSettings = procedure({ auth: "apiKey", role: "ADMIN" })
  .meta(updateExposureSettingsMeta)
  .input(ZUpdateExposureSettings)
  .output(ZExposureSettings)
  .mutation(({ ctx, input }) => updateExposureSettings(ctx.db, { ...scopeOf(ctx.principal), ...input }));
