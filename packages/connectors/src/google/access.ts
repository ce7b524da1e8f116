import type { TAccessRequirement } from "../types";
import { GOOGLE_SETTINGS_ACCESS } from "./settings";

/** Every scope the Google Workspace connector's features need, granted to its domain-wide delegation. */
export const GOOGLE_ACCESS: readonly TAccessRequirement[] = [...GOOGLE_SETTINGS_ACCESS];
