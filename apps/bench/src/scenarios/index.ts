import type { TScenario } from "../types";
import { auditList } from "./audit-list";
import { evidence1m } from "./evidence-1m";
import { exposure1m } from "./exposure-1m";
import { behaviour } from "./behaviour";
import { findingsExport } from "./findings-export";
import { findingsList } from "./findings-list";
import { mcpFindings } from "./mcp-findings";
import { partnerPortfolio } from "./partner-portfolio";
import { posturePdf } from "./posture-pdf";
import { readCache1k } from "./read-cache-1k";
import { remediation1m } from "./remediation-1m";
import { remediationApply } from "./remediation-apply";
import { rescan1m } from "./rescan-1m";
import { scan100k } from "./scan-100k";
import { scan100kApi } from "./scan-100k-api";
import { timeline } from "./timeline";
import { usage } from "./usage";

// One file per scenario; add new ones here.
export const scenarios: TScenario[] = [
  findingsList,
  auditList,
  timeline,
  usage,
  readCache1k,
  scan100k,
  scan100kApi,
  evidence1m,
  partnerPortfolio,
  posturePdf,
  exposure1m,
  rescan1m,
  behaviour,
  remediation1m,
  remediationApply,
  mcpFindings,
  findingsExport,
];
