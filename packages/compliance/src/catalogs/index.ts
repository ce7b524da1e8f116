import { COMPLIANCE_FRAMEWORKS, type TComplianceFramework } from "@posture/db";
import { GDPR } from "./gdpr";
import { HIPAA } from "./hipaa";
import { ISO27001 } from "./iso27001";
import { NIST_CSF } from "./nist-csf";
import { SOC2 } from "./soc2";
import type { TFramework } from "./types";

export * from "./types";

export const FRAMEWORKS: Record<TComplianceFramework, TFramework> = {
  soc2: SOC2,
  iso27001: ISO27001,
  gdpr: GDPR,
  hipaa: HIPAA,
  nist_csf: NIST_CSF,
};

export { COMPLIANCE_FRAMEWORKS, type TComplianceFramework };
