import type { TScenario } from "../types";
import { auditList } from "./audit-list";
import { findingsList } from "./findings-list";
import { scan100k } from "./scan-100k";

// One file per scenario; add new ones here.
export const scenarios: TScenario[] = [auditList, findingsList, scan100k];
