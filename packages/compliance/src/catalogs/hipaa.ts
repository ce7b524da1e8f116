import type { TFramework } from "./types";

// HIPAA Security Rule, 45 CFR Part 164 Subpart C: administrative (164.308) and technical
// (164.312) safeguards a SaaS workspace's posture evidences.
export const HIPAA: TFramework = {
  id: "hipaa",
  name: "HIPAA Security Rule",
  version: "45 CFR Part 164 Subpart C",
  controls: [
    { id: "164.308(a)(1)(ii)(A)", title: "Risk analysis", kinds: ["posture"] },
    { id: "164.308(a)(1)(ii)(B)", title: "Risk management", kinds: ["posture", "public_link"] },
    {
      id: "164.308(a)(1)(ii)(D)",
      title: "Information system activity review",
      kinds: ["audit_log", "anomaly"],
    },
    { id: "164.308(a)(3)(ii)(C)", title: "Termination procedures", kinds: ["dormant"] },
    {
      id: "164.308(a)(4)(i)",
      title: "Information access management",
      kinds: ["oauth_app", "internal_exposure"],
    },
    { id: "164.308(a)(4)(ii)(B)", title: "Access authorization", kinds: ["admin", "ext_share", "oauth_app"] },
    {
      id: "164.308(a)(4)(ii)(C)",
      title: "Access establishment and modification",
      kinds: ["admin", "dormant"],
    },
    { id: "164.308(a)(5)(i)", title: "Security awareness and training", kinds: ["awareness"] },
    { id: "164.308(a)(5)(ii)(A)", title: "Security reminders", kinds: ["awareness"] },
    { id: "164.308(a)(5)(ii)(C)", title: "Log-in monitoring", kinds: ["anomaly", "audit_log"] },
    { id: "164.308(a)(5)(ii)(D)", title: "Password management", kinds: ["mfa"] },
    { id: "164.308(a)(6)(ii)", title: "Response and reporting", kinds: ["incident"] },
    { id: "164.308(a)(8)", title: "Evaluation", kinds: ["posture"] },
    {
      id: "164.308(b)(1)",
      title: "Business associate contracts and other arrangements",
      kinds: ["oauth_app"],
    },
    {
      id: "164.312(a)(1)",
      title: "Access control",
      kinds: ["public_link", "ext_share", "mfa", "internal_exposure"],
    },
    { id: "164.312(a)(2)(i)", title: "Unique user identification", kinds: ["inventory"] },
    { id: "164.312(a)(2)(iii)", title: "Automatic logoff", kinds: [] },
    { id: "164.312(b)", title: "Audit controls", kinds: ["audit_log"] },
    { id: "164.312(d)", title: "Person or entity authentication", kinds: ["mfa"] },
    { id: "164.312(e)(1)", title: "Transmission security", kinds: ["ext_share", "public_link"] },
  ],
};
