import { z } from "zod";
import { FINDING_CATEGORIES, SEVERITIES } from "../engine";

// The engine's vocabularies, as the API's schemas: one list, so they cannot drift apart.
export const ZSeverity = z.enum(SEVERITIES);
export const ZFindingCategory = z.enum(FINDING_CATEGORIES);
