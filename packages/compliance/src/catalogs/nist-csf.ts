import type { TFramework } from "./types";

// NIST Cybersecurity Framework 2.0 (CSWP 29, February 2024): subcategory ids of CSF 2.0 (not
// 1.1's PR.AC-1 style); outcomes condensed from the subcategory text.
export const NIST_CSF: TFramework = {
  id: "nist_csf",
  name: "NIST CSF",
  version: "2.0",
  controls: [
    {
      id: "GV.SC-07",
      title: "Supplier and third-party risks understood, assessed, responded to and monitored",
      kinds: ["oauth_app"],
    },
    {
      id: "ID.AM-02",
      title: "Inventories of software, services and systems maintained",
      kinds: ["oauth_app", "inventory"],
    },
    {
      id: "ID.AM-03",
      title: "Representations of authorized communication and data flows maintained",
      kinds: ["inventory", "ext_share"],
    },
    {
      id: "ID.AM-07",
      title: "Inventories of data and metadata for designated data types maintained",
      kinds: ["inventory", "data_class"],
    },
    {
      id: "ID.RA-01",
      title: "Vulnerabilities in assets identified, validated and recorded",
      kinds: ["posture"],
    },
    {
      id: "PR.AA-01",
      title: "Identities and credentials of authorized users managed",
      kinds: ["dormant", "admin"],
    },
    { id: "PR.AA-03", title: "Users, services and hardware authenticated", kinds: ["mfa"] },
    {
      id: "PR.AA-05",
      title: "Access permissions defined, managed and reviewed; least privilege",
      kinds: ["admin", "ext_share", "public_link", "oauth_app", "internal_exposure"],
    },
    { id: "PR.AT-01", title: "Personnel provided with awareness and training", kinds: ["awareness"] },
    {
      id: "PR.DS-01",
      title: "Confidentiality, integrity and availability of data-at-rest protected",
      kinds: ["public_link", "ext_share", "data_class"],
    },
    {
      id: "PR.PS-01",
      title: "Configuration management practices established and applied",
      kinds: ["posture"],
    },
    {
      id: "PR.PS-04",
      title: "Log records generated and made available for continuous monitoring",
      kinds: ["audit_log"],
    },
    { id: "DE.CM-03", title: "Personnel activity and technology usage monitored", kinds: ["anomaly"] },
    {
      id: "DE.CM-06",
      title: "External service provider activities and services monitored",
      kinds: ["oauth_app"],
    },
    { id: "DE.AE-02", title: "Potentially adverse events analyzed", kinds: ["anomaly"] },
    { id: "DE.AE-03", title: "Information correlated from multiple sources", kinds: ["incident"] },
    {
      id: "DE.AE-08",
      title: "Incidents declared when adverse events meet incident criteria",
      kinds: ["incident"],
    },
    { id: "RS.MA-03", title: "Incidents categorized and prioritized", kinds: ["incident"] },
    {
      id: "RS.AN-03",
      title: "Analysis performed to establish what happened and the root cause",
      kinds: ["incident"],
    },
    {
      id: "ID.IM-03",
      title: "Improvements identified from execution of operational processes",
      kinds: ["incident"],
    },
  ],
};
