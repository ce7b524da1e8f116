import { GOOGLE_SETTINGS } from "../google/settings";
import { MICROSOFT_SETTINGS } from "../microsoft/settings";
import type { TTenantSetting } from "../types";
import type { TDemoShape } from "./shape";

/** The demo tenant's settings: each source's settings list at its demo value. */
export function demoTenantSettings(shape: TDemoShape): TTenantSetting[] {
  const specs = shape.type === "google_workspace" ? GOOGLE_SETTINGS : MICROSOFT_SETTINGS;
  return specs.map((s) => ({ key: s.key, value: s.demo, source: `demo: ${s.source}` }));
}
