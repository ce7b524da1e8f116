import type { TFramework } from "./types";

// AICPA Trust Services Criteria (2017), Security: the Common Criteria a SaaS workspace touches.
// The criteria have no official short titles; these are condensed from the criterion text.
export const SOC2: TFramework = {
  id: "soc2",
  name: "SOC 2",
  version: "Trust Services Criteria 2017",
  controls: [
    {
      id: "CC2.2",
      title: "Internal communication of security objectives and responsibilities",
      kinds: ["awareness"],
    },
    { id: "CC3.2", title: "Risks to objectives identified and analyzed", kinds: ["posture"] },
    {
      id: "CC4.2",
      title: "Control deficiencies communicated in a timely manner",
      kinds: ["posture", "audit_log"],
    },
    {
      id: "CC6.1",
      title: "Logical access security software, infrastructure and architectures",
      kinds: ["mfa", "admin", "public_link", "dormant", "internal_exposure"],
    },
    {
      id: "CC6.2",
      title: "New internal and external users registered and authorized before access",
      kinds: ["ext_share", "dormant"],
    },
    {
      id: "CC6.3",
      title: "Access authorized, modified and removed; least privilege and segregation of duties",
      kinds: ["admin", "dormant", "oauth_app", "internal_exposure"],
    },
    {
      id: "CC6.6",
      title: "Protection against threats from sources outside system boundaries",
      kinds: ["mfa", "public_link", "ext_share"],
    },
    {
      id: "CC6.7",
      title: "Transmission, movement and removal of information restricted to authorized users",
      kinds: ["ext_share", "public_link", "trusted_domain", "inventory"],
    },
    { id: "CC6.8", title: "Unauthorized or malicious software prevented or detected", kinds: ["oauth_app"] },
    { id: "CC7.1", title: "Configuration changes and new vulnerabilities detected", kinds: ["posture"] },
    { id: "CC7.2", title: "System components monitored for anomalies", kinds: ["audit_log", "anomaly"] },
    {
      id: "CC7.3",
      title: "Security events evaluated to determine whether they are incidents",
      kinds: ["anomaly", "incident"],
    },
    {
      id: "CC7.4",
      title: "Security incidents responded to: understood, contained, remediated, communicated",
      kinds: ["incident"],
    },
    { id: "CC7.5", title: "Recovery from identified security incidents", kinds: ["incident"] },
    {
      id: "CC9.2",
      title: "Vendor and business-partner risk assessed and managed",
      kinds: ["oauth_app", "trusted_domain"],
    },
    {
      id: "C1.1",
      title: "Confidential information identified and maintained",
      kinds: ["data_class", "inventory"],
    },
  ],
};
