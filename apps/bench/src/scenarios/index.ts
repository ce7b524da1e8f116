import type { TScenario } from "../types";
import { auditList } from "./audit-list";

// One file per scenario; add new ones here (findings listing, a scan of 100k files, ...).
export const scenarios: TScenario[] = [auditList];
