import type { TFramework } from "./types";

// Regulation (EU) 2016/679: the articles whose technical and organisational measures the
// workspace's posture evidences.
export const GDPR: TFramework = {
  id: "gdpr",
  name: "GDPR",
  version: "Regulation (EU) 2016/679",
  controls: [
    {
      id: "Art. 5(1)(f)",
      title: "Principles relating to processing of personal data: integrity and confidentiality",
      kinds: ["public_link", "ext_share", "mfa"],
    },
    {
      id: "Art. 5(2)",
      title: "Principles relating to processing of personal data: accountability",
      kinds: ["audit_log"],
    },
    { id: "Art. 24", title: "Responsibility of the controller", kinds: ["posture"] },
    {
      id: "Art. 25",
      title: "Data protection by design and by default",
      kinds: ["public_link", "ext_share", "trusted_domain", "internal_exposure"],
    },
    { id: "Art. 28", title: "Processor", kinds: ["oauth_app"] },
    {
      id: "Art. 29",
      title: "Processing under the authority of the controller or processor",
      kinds: ["oauth_app", "admin"],
    },
    { id: "Art. 30", title: "Records of processing activities", kinds: ["inventory"] },
    {
      id: "Art. 32",
      title: "Security of processing",
      kinds: ["mfa", "admin", "audit_log", "dormant", "public_link", "internal_exposure"],
    },
    {
      id: "Art. 33",
      title: "Notification of a personal data breach to the supervisory authority",
      kinds: ["incident"],
    },
    {
      id: "Art. 34",
      title: "Communication of a personal data breach to the data subject",
      kinds: ["incident"],
    },
    { id: "Art. 35", title: "Data protection impact assessment", kinds: ["oauth_app"] },
    {
      id: "Art. 39(1)(b)",
      title: "Tasks of the data protection officer: awareness-raising and training of staff",
      kinds: ["awareness"],
    },
    { id: "Art. 44", title: "General principle for transfers", kinds: ["ext_share", "inventory"] },
  ],
};
