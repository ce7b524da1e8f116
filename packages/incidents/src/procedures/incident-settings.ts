import { procedure, scopeOf } from "@posture/platform";
import { z } from "zod";
import { getIncidentSettings, updateIncidentSettings } from "../services/settings";
import {
  getIncidentSettingsMeta,
  updateIncidentSettingsMeta,
  ZIncidentSettings,
  ZUpdateIncidentSettings,
} from "./incident-settings.types";

export const getSettings = procedure({ auth: "apiKey", plan: "business", role: "ADMIN" })
  .meta(getIncidentSettingsMeta)
  .input(z.void())
  .output(ZIncidentSettings)
  .query(({ ctx }) => getIncidentSettings(ctx.db, scopeOf(ctx.principal)));

export const updateSettings = procedure({ auth: "apiKey", plan: "business", role: "ADMIN" })
  .meta(updateIncidentSettingsMeta)
  .input(ZUpdateIncidentSettings)
  .output(ZIncidentSettings)
  .mutation(({ ctx, input }) => updateIncidentSettings(ctx.db, scopeOf(ctx.principal), input));
