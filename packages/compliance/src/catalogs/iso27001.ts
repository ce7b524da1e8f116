import type { TFramework } from "./types";

// ISO/IEC 27001:2022 Annex A: the controls a SaaS workspace's posture gives evidence for.
export const ISO27001: TFramework = {
  id: "iso27001",
  name: "ISO/IEC 27001",
  version: "2022 Annex A",
  controls: [
    {
      id: "A.5.9",
      title: "Inventory of information and other associated assets",
      kinds: ["inventory", "oauth_app"],
    },
    { id: "A.5.12", title: "Classification of information", kinds: ["data_class"] },
    { id: "A.5.13", title: "Labelling of information", kinds: ["data_class"] },
    { id: "A.5.14", title: "Information transfer", kinds: ["ext_share", "public_link", "trusted_domain"] },
    { id: "A.5.15", title: "Access control", kinds: ["mfa", "ext_share", "internal_exposure"] },
    { id: "A.5.16", title: "Identity management", kinds: ["dormant"] },
    { id: "A.5.17", title: "Authentication information", kinds: ["mfa"] },
    {
      id: "A.5.18",
      title: "Access rights",
      kinds: ["ext_share", "oauth_app", "dormant", "internal_exposure"],
    },
    {
      id: "A.5.19",
      title: "Information security in supplier relationships",
      kinds: ["oauth_app", "trusted_domain"],
    },
    { id: "A.5.23", title: "Information security for use of cloud services", kinds: ["posture"] },
    {
      id: "A.5.24",
      title: "Information security incident management planning and preparation",
      kinds: ["incident"],
    },
    {
      id: "A.5.25",
      title: "Assessment and decision on information security events",
      kinds: ["incident", "anomaly"],
    },
    { id: "A.5.26", title: "Response to information security incidents", kinds: ["incident"] },
    { id: "A.5.27", title: "Learning from information security incidents", kinds: ["incident"] },
    { id: "A.5.28", title: "Collection of evidence", kinds: ["audit_log"] },
    { id: "A.6.3", title: "Information security awareness, education and training", kinds: ["awareness"] },
    { id: "A.8.2", title: "Privileged access rights", kinds: ["admin", "mfa"] },
    { id: "A.8.5", title: "Secure authentication", kinds: ["mfa"] },
    { id: "A.8.12", title: "Data leakage prevention", kinds: ["public_link", "ext_share", "data_class"] },
    { id: "A.8.15", title: "Logging", kinds: ["audit_log"] },
    { id: "A.8.16", title: "Monitoring activities", kinds: ["anomaly"] },
    { id: "A.8.18", title: "Use of privileged utility programs", kinds: ["oauth_app"] },
    { id: "A.8.26", title: "Application security requirements", kinds: ["oauth_app"] },
  ],
};
