import { z } from "zod";
import { SEVERITIES } from "@posture/db";
import { FINDING_CATEGORIES } from "../engine";

// The shared vocabularies, as the API's schemas: one list each, so they cannot drift apart.
export const ZSeverity = z.enum(SEVERITIES);
export const ZFindingCategory = z.enum(FINDING_CATEGORIES);
