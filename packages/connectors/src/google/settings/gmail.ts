import { asBoolean, flag, lessSecureOf, policy, type TPolicyShape, type TSettingDef } from "./shapes";

/**
 * A Gmail safety protection: its switch and the action taken, read as ON, NO_ACTION (switched on
 * but doing nothing) or OFF.
 */
function protection(
  enable: string,
  consequence: string,
  onByDefault: boolean,
): TPolicyShape & { field: string } {
  return {
    field: `${enable},${consequence}`,
    googleDefault: onByDefault ? "ON" : "OFF",
    read: (v) => {
      const on = asBoolean(v[enable]);
      if (on === false) return "OFF";
      if (v[consequence] === "NO_ACTION") return "NO_ACTION";
      return on === undefined && v[consequence] === undefined ? undefined : "ON";
    },
    weaker: lessSecureOf(["ON", "NO_ACTION", "OFF"]),
  };
}

// Gmail
export const GMAIL_SETTINGS: readonly TSettingDef[] = [
  policy(
    "gmail.mail_delegation",
    "Users may delegate access to their mailbox",
    "gmail.mail_delegation",
    flag("enableMailDelegation", false, false),
    false,
  ),
  policy(
    "gmail.pop_access",
    "POP access is allowed",
    "gmail.pop_access",
    flag("enablePopAccess", false, true),
    false,
  ),
  policy(
    "gmail.imap_access",
    "IMAP access is allowed",
    "gmail.imap_access",
    flag("enableImapAccess", false, true),
    false,
  ),
  policy(
    "gmail.auto_forwarding",
    "Users may forward incoming mail automatically",
    "gmail.auto_forwarding",
    flag("enableAutoForwarding", false, true),
    true,
  ),
  policy(
    "gmail.per_user_outbound_gateway",
    "Users may send through external SMTP servers",
    "gmail.per_user_outbound_gateway",
    flag("allowUsersToUseExternalSmtpServers", false, false),
    false,
  ),
  policy(
    "gmail.enhanced_pre_delivery_scanning",
    "Enhanced pre-delivery message scanning",
    "gmail.enhanced_pre_delivery_message_scanning",
    flag("enableImprovedSuspiciousContentDetection", true, true),
    true,
  ),
  policy(
    "gmail.encrypted_attachment_protection",
    "Protection against encrypted attachments from untrusted senders",
    "gmail.email_attachment_safety",
    protection("enableEncryptedAttachmentProtection", "encryptedAttachmentProtectionConsequence", true),
    "ON",
  ),
  policy(
    "gmail.script_attachment_protection",
    "Protection against attachments with scripts from untrusted senders",
    "gmail.email_attachment_safety",
    protection("enableAttachmentWithScriptsProtection", "scriptAttachmentProtectionConsequence", true),
    "ON",
  ),
  policy(
    "gmail.anomalous_attachment_protection",
    "Protection against anomalous attachment types",
    "gmail.email_attachment_safety",
    protection("enableAnomalousAttachmentProtection", "anomalousAttachmentProtectionConsequence", false),
    "OFF",
  ),
  policy(
    "gmail.shortener_scanning",
    "Links behind shortened URLs are identified",
    "gmail.links_and_external_images",
    flag("enableShortenerScanning", true, true),
    true,
  ),
  policy(
    "gmail.external_image_scanning",
    "Linked images are scanned",
    "gmail.links_and_external_images",
    flag("enableExternalImageScanning", true, true),
    true,
  ),
  policy(
    "gmail.untrusted_link_warnings",
    "A warning is shown for any click on links to untrusted domains",
    "gmail.links_and_external_images",
    flag("enableAggressiveWarningsOnUntrustedLinks", true, false),
    false,
  ),
  policy(
    "gmail.domain_spoofing_protection",
    "Protection against domain spoofing based on similar domain names",
    "gmail.spoofing_and_authentication",
    protection("detectDomainNameSpoofing", "domainSpoofingConsequence", true),
    "ON",
  ),
  policy(
    "gmail.employee_name_spoofing_protection",
    "Protection against spoofing of employee names",
    "gmail.spoofing_and_authentication",
    protection("detectEmployeeNameSpoofing", "employeeNameSpoofingConsequence", true),
    "ON",
  ),
  policy(
    "gmail.inbound_domain_spoofing_protection",
    "Protection against inbound emails spoofing your domain",
    "gmail.spoofing_and_authentication",
    protection("detectDomainSpoofingFromUnauthenticatedSenders", "inboundDomainSpoofingConsequence", true),
    "ON",
  ),
  policy(
    "gmail.unauthenticated_email_protection",
    "Protection against any unauthenticated emails",
    "gmail.spoofing_and_authentication",
    protection("detectUnauthenticatedEmails", "unauthenticatedEmailConsequence", false),
    "ON",
  ),
  policy(
    "gmail.groups_spoofing_protection",
    "Groups are protected from inbound emails spoofing your domain",
    "gmail.spoofing_and_authentication",
    protection("detectGroupsSpoofing", "groupsSpoofingConsequence", false),
    "OFF",
  ),
];
