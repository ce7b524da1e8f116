import type { TAccessRequirement } from "../types";
import { MICROSOFT_SETTINGS_ACCESS } from "./settings";

/** Every application permission (and licence) the Microsoft 365 connector's features need. */
export const MICROSOFT_ACCESS: readonly TAccessRequirement[] = [...MICROSOFT_SETTINGS_ACCESS];
