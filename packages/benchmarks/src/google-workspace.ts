import type { TSettingValue } from "@posture/connectors";
import type { TCheckControls, TTenantCheck } from "./types";

/**
 * CIS Google Workspace Foundations Benchmark v1.3.0 recommendations that the Cloud Identity Policy
 * API and the Admin SDK Directory expose, over the settings of `connectors/src/google/settings/`.
 * Each setting's value is already the least secure across the root org unit and every org-unit or
 * group override, so a check fails when any org unit fails it. Recommendations the APIs do not
 * expose (DKIM, SPF, DMARC, alert rules, offline access, Takeout) are left out rather than guessed.
 */
const CIS = (id: string) => ({ name: "CIS Google Workspace Foundations", version: "1.3.0", id });

type TValues = Readonly<Record<string, TSettingValue>>;

/** Controls a kind of tenant setting evidences in each framework (ids as in the compliance catalogs). */
const CONTROLS = {
  mfa: {
    soc2: ["CC6.1", "CC6.6"],
    iso27001: ["A.5.17", "A.8.5"],
    gdpr: ["Art. 32"],
    hipaa: ["164.312(d)", "164.308(a)(5)(ii)(D)"],
    nist_csf: ["PR.AA-03"],
  },
  adminMfa: {
    soc2: ["CC6.1", "CC6.3"],
    iso27001: ["A.8.2", "A.8.5"],
    gdpr: ["Art. 32"],
    hipaa: ["164.312(d)", "164.308(a)(4)(ii)(B)"],
    nist_csf: ["PR.AA-03", "PR.AA-05"],
  },
  admin: {
    soc2: ["CC6.1", "CC6.3"],
    iso27001: ["A.8.2"],
    gdpr: ["Art. 32"],
    hipaa: ["164.308(a)(4)(ii)(B)", "164.308(a)(4)(ii)(C)"],
    nist_csf: ["PR.AA-01", "PR.AA-05"],
  },
  credentials: {
    soc2: ["CC6.1"],
    iso27001: ["A.5.17", "A.8.5"],
    gdpr: ["Art. 32"],
    hipaa: ["164.308(a)(5)(ii)(D)"],
    nist_csf: ["PR.AA-03"],
  },
  session: {
    soc2: ["CC6.1"],
    iso27001: ["A.8.5"],
    gdpr: ["Art. 32"],
    hipaa: ["164.312(a)(2)(iii)"],
    nist_csf: ["PR.AA-03"],
  },
  oauthApp: {
    soc2: ["CC6.8", "CC9.2"],
    iso27001: ["A.5.19", "A.8.26"],
    gdpr: ["Art. 28"],
    hipaa: ["164.308(a)(4)(i)"],
    nist_csf: ["GV.SC-07", "DE.CM-06"],
  },
  extShare: {
    soc2: ["CC6.6", "CC6.7"],
    iso27001: ["A.5.14", "A.8.12"],
    gdpr: ["Art. 5(1)(f)", "Art. 25"],
    hipaa: ["164.312(a)(1)", "164.312(e)(1)"],
    nist_csf: ["PR.DS-01", "PR.AA-05"],
  },
  publicLink: {
    soc2: ["CC6.1", "CC6.7"],
    iso27001: ["A.5.14", "A.8.12"],
    gdpr: ["Art. 25", "Art. 32"],
    hipaa: ["164.312(a)(1)", "164.308(a)(1)(ii)(B)"],
    nist_csf: ["PR.DS-01"],
  },
  sharedDrive: {
    soc2: ["CC6.2", "CC6.7"],
    iso27001: ["A.5.15", "A.5.18"],
    gdpr: ["Art. 25"],
    hipaa: ["164.308(a)(4)(ii)(B)"],
    nist_csf: ["PR.AA-05", "PR.DS-01"],
  },
  mailExfil: {
    soc2: ["CC6.7"],
    iso27001: ["A.5.14", "A.8.12"],
    gdpr: ["Art. 5(1)(f)", "Art. 32"],
    hipaa: ["164.312(e)(1)"],
    nist_csf: ["PR.DS-01"],
  },
  alerting: {
    soc2: ["CC7.2", "CC7.3"],
    iso27001: ["A.8.16", "A.5.25"],
    gdpr: ["Art. 32", "Art. 33"],
    hipaa: ["164.308(a)(1)(ii)(D)", "164.308(a)(5)(ii)(C)"],
    nist_csf: ["DE.CM-03", "DE.AE-02"],
  },
  malware: {
    soc2: ["CC6.8"],
    iso27001: ["A.5.23"],
    gdpr: ["Art. 32"],
    hipaa: ["164.308(a)(1)(ii)(B)"],
    nist_csf: ["PR.PS-01"],
  },
} satisfies Record<string, TCheckControls>;

/** Every tenant check is also configuration evidence: cloud-service security and configuration management. */
function controls(...kinds: Array<keyof typeof CONTROLS>): TCheckControls {
  const merged: Record<keyof TCheckControls, string[]> = {
    soc2: ["CC7.1"],
    iso27001: ["A.5.23"],
    gdpr: ["Art. 24"],
    hipaa: ["164.308(a)(8)"],
    nist_csf: ["PR.PS-01"],
  };
  for (const kind of kinds) {
    for (const framework of Object.keys(merged) as Array<keyof TCheckControls>) {
      for (const id of CONTROLS[kind][framework])
        if (!merged[framework].includes(id)) merged[framework].push(id);
    }
  }
  return merged;
}

const is = (key: string, expected: TSettingValue) => (v: TValues) => v[key] === expected;
const oneOf = (key: string, allowed: readonly string[]) => (v: TValues) => {
  const value = v[key];
  return typeof value === "string" && allowed.includes(value);
};
const num = (v: TValues, key: string): number | null => (typeof v[key] === "number" ? v[key] : null);

type TCheckInput = Omit<TTenantCheck, "source" | "benchmark"> & { cis: string };
const check = ({ cis, ...rest }: TCheckInput): TTenantCheck => ({
  ...rest,
  source: "google_workspace",
  benchmark: CIS(cis),
});

/** CIS 6.x: a system-defined alert rule is on, sends to the alert center and emails all super admins. */
const alertRuleCheck = (
  cis: string,
  key: string,
  displayName: string,
  severity: TTenantCheck["severity"],
): TTenantCheck =>
  check({
    id: `gws_alert_${key}`,
    cis,
    title: `The "${displayName}" alert is on and emails all super admins`,
    severity,
    settings: [`rules.alert_${key}`],
    expected: `Rules > "${displayName}": Send to alert center on, Send email notifications to All super administrators`,
    test: is(`rules.alert_${key}`, true),
    fix: `Admin console > Rules > Google protects you by default (View list) > ${displayName} > Actions: Send to alert center, Send email notifications to All super administrators`,
    controls: controls("alerting"),
  });

/** CIS 3.1.3.4.x: Gmail's attachment, link and spoofing protections, on and acting. */
function gmailProtections(): TTenantCheck[] {
  const ATTACHMENTS = "Admin console > Apps > Google Workspace > Gmail > Safety > Attachments";
  const LINKS = "Admin console > Apps > Google Workspace > Gmail > Safety > Links and external images";
  const SPOOFING = "Admin console > Apps > Google Workspace > Gmail > Safety > Spoofing and authentication";
  const rows: Array<[cis: string, id: string, key: string, what: string, place: string, acting: boolean]> = [
    [
      "3.1.3.4.1.1",
      "encrypted_attachments",
      "encrypted_attachment_protection",
      "Protect against encrypted attachments from untrusted senders",
      ATTACHMENTS,
      true,
    ],
    [
      "3.1.3.4.1.2",
      "script_attachments",
      "script_attachment_protection",
      "Protect against attachments with scripts from untrusted senders",
      ATTACHMENTS,
      true,
    ],
    [
      "3.1.3.4.1.3",
      "anomalous_attachments",
      "anomalous_attachment_protection",
      "Protect against anomalous attachment types in emails",
      ATTACHMENTS,
      true,
    ],
    [
      "3.1.3.4.2.1",
      "shortened_links",
      "shortener_scanning",
      "Identify links behind shortened URLs",
      LINKS,
      false,
    ],
    ["3.1.3.4.2.2", "linked_images", "external_image_scanning", "Scan linked images", LINKS, false],
    [
      "3.1.3.4.2.3",
      "untrusted_link_warning",
      "untrusted_link_warnings",
      "Show warning prompt for any click on links to untrusted domains",
      LINKS,
      false,
    ],
    [
      "3.1.3.4.3.1",
      "similar_domain_spoofing",
      "domain_spoofing_protection",
      "Protect against domain spoofing based on similar domain names",
      SPOOFING,
      true,
    ],
    [
      "3.1.3.4.3.2",
      "employee_name_spoofing",
      "employee_name_spoofing_protection",
      "Protect against spoofing of employee names",
      SPOOFING,
      true,
    ],
    [
      "3.1.3.4.3.3",
      "inbound_domain_spoofing",
      "inbound_domain_spoofing_protection",
      "Protect against inbound emails spoofing your domain",
      SPOOFING,
      true,
    ],
    [
      "3.1.3.4.3.4",
      "unauthenticated_email",
      "unauthenticated_email_protection",
      "Protect against any unauthenticated emails",
      SPOOFING,
      true,
    ],
    [
      "3.1.3.4.3.5",
      "groups_spoofing",
      "groups_spoofing_protection",
      "Protect your Groups from inbound emails spoofing your domain",
      SPOOFING,
      true,
    ],
  ];
  return rows.map(([cis, id, key, what, place, acting]) =>
    check({
      id: `gws_gmail_${id}_protected`,
      cis,
      title: `Gmail safety: ${what} is on`,
      severity: "MEDIUM",
      settings: [`gmail.${key}`],
      expected: acting
        ? `${what}: on in every org unit, with an action other than No action (warning, spam or quarantine)`
        : `${what}: on in every org unit`,
      test: acting ? is(`gmail.${key}`, "ON") : is(`gmail.${key}`, true),
      fix: `${place}: check ${what}${acting ? ", action Keep email in inbox and show warning, or Move email to spam" : ""}`,
      controls: controls("malware"),
    }),
  );
}

export const GOOGLE_WORKSPACE_CHECKS: readonly TTenantCheck[] = [
  // 1 Directory
  check({
    id: "gws_super_admins_at_least_two",
    cis: "1.1.1",
    title: "More than one super admin account exists",
    severity: "MEDIUM",
    settings: ["directory.super_admin_count"],
    expected: "At least 2 active super admin accounts, so losing one does not lock the tenant out",
    test: (v) => (num(v, "directory.super_admin_count") ?? 0) >= 2,
    fix: "Admin console > Account > Admin roles > Super Admin > Assign users: assign a second super admin",
    controls: controls("admin"),
  }),
  check({
    id: "gws_super_admins_at_most_four",
    cis: "1.1.2",
    title: "No more than four super admin accounts exist",
    severity: "HIGH",
    settings: ["directory.super_admin_count"],
    expected: "At most 4 active super admin accounts",
    test: (v) => {
      const count = num(v, "directory.super_admin_count");
      return count !== null && count <= 4;
    },
    fix: "Admin console > Account > Admin roles > Super Admin > Admins: unassign the role from accounts that do not need it, giving them a narrower admin role",
    controls: controls("admin"),
  }),
  check({
    id: "gws_super_admins_dedicated",
    cis: "1.1.3",
    title: "Super admin accounts are used only for super admin activities",
    severity: "MEDIUM",
    settings: ["directory.super_admins_with_other_roles"],
    expected:
      "No active super admin account also holds another admin role (daily work uses a separate account)",
    test: (v) => num(v, "directory.super_admins_with_other_roles") === 0,
    fix: "Admin console > Account > Admin roles: unassign other roles from super admin accounts and give each super admin a separate, non-admin account for daily work",
    controls: controls("admin"),
  }),
  // 3.1.1 Calendar
  check({
    id: "gws_calendar_external_sharing_free_busy",
    cis: "3.1.1.1.1",
    title: "Primary calendars share only free/busy information outside the organization",
    severity: "MEDIUM",
    settings: ["calendar.primary_external_sharing"],
    expected:
      "External sharing options for primary calendars: Only free/busy information (hide event details)",
    test: is("calendar.primary_external_sharing", "EXTERNAL_FREE_BUSY_ONLY"),
    fix: "Admin console > Apps > Google Workspace > Calendar > Sharing settings > External sharing options for primary calendars: Only free/busy information (hide event details)",
    controls: controls("extShare"),
  }),
  check({
    id: "gws_calendar_external_invitation_warning",
    cis: "3.1.1.1.3",
    title: "Users are warned when inviting guests from outside the organization",
    severity: "LOW",
    settings: ["calendar.external_invitation_warning"],
    expected: "External invitations: Warn users when inviting guests outside of the domain, on",
    test: is("calendar.external_invitation_warning", true),
    fix: "Admin console > Apps > Google Workspace > Calendar > Sharing settings > External invitations: check Warn users when inviting guests outside of the domain",
    controls: controls("extShare"),
  }),
  check({
    id: "gws_calendar_secondary_sharing_free_busy",
    cis: "3.1.1.2.1",
    title: "Secondary calendars share only free/busy information outside the organization",
    severity: "MEDIUM",
    settings: ["calendar.secondary_external_sharing"],
    expected:
      "External sharing options for secondary calendars: Only free/busy information (hide event details)",
    test: is("calendar.secondary_external_sharing", "EXTERNAL_FREE_BUSY_ONLY"),
    fix: "Admin console > Apps > Google Workspace > Calendar > General settings > External sharing options for secondary calendars: Only free/busy information (hide event details)",
    controls: controls("extShare"),
  }),
  check({
    id: "gws_chat_internal_file_sharing_disabled",
    cis: "3.1.4.1.2",
    title: "Files cannot be shared in Chat inside the organization",
    severity: "LOW",
    settings: ["chat.internal_file_sharing"],
    expected: "Chat File Sharing > Internal filesharing: No files",
    test: is("chat.internal_file_sharing", "NO_FILES"),
    fix: "Admin console > Apps > Google Workspace > Google Chat > Chat File Sharing > Internal filesharing: No files",
    controls: controls("mailExfil"),
  }),
  check({
    id: "gws_chat_external_spaces_restricted",
    cis: "3.1.4.3.1",
    title: "Chat spaces with outside people are limited to allowlisted domains",
    severity: "MEDIUM",
    settings: ["chat.external_spaces"],
    expected: "External spaces: off, or on for allowlisted domains only",
    test: oneOf("chat.external_spaces", ["OFF", "TRUSTED_DOMAINS"]),
    fix: "Admin console > Apps > Google Workspace > Google Chat > External Spaces > Allow users to create and join spaces with people outside their organization: ON with Only allow users to add people from allowlisted domains (or OFF)",
    controls: controls("extShare"),
  }),
  check({
    id: "gws_chat_apps_disabled",
    cis: "3.1.4.4.1",
    title: "Users cannot install Chat apps",
    severity: "MEDIUM",
    settings: ["chat.apps_allowed"],
    expected: "Chat apps access settings > Allow users to install Chat apps: off",
    test: is("chat.apps_allowed", false),
    fix: "Admin console > Apps > Google Workspace > Google Chat > Chat apps > Chat apps access settings: set Allow users to install Chat apps to OFF",
    controls: controls("oauthApp"),
  }),
  check({
    id: "gws_chat_incoming_webhooks_disabled",
    cis: "3.1.4.4.2",
    title: "Users cannot add incoming webhooks to Chat",
    severity: "MEDIUM",
    settings: ["chat.incoming_webhooks_allowed"],
    expected: "Chat apps access settings > Allow users to add and use incoming webhooks: off",
    test: is("chat.incoming_webhooks_allowed", false),
    fix: "Admin console > Apps > Google Workspace > Google Chat > Chat apps > Chat apps access settings: set Allow users to add and use incoming webhooks to OFF",
    controls: controls("oauthApp"),
  }),
  // 3.1.2 Drive and Docs
  check({
    id: "gws_drive_external_sharing_warning",
    cis: "3.1.2.1.1.1",
    title: "Users are warned when they share a file outside the organization",
    severity: "MEDIUM",
    settings: ["drive.external_sharing_warning"],
    expected: "Warn when files owned by users or shared drives are shared outside the organization: on",
    test: is("drive.external_sharing_warning", true),
    fix: "Admin console > Apps > Google Workspace > Drive and Docs > Sharing settings > Sharing options: check Warn when files owned by users or shared drives in this organization are shared outside of the organization",
    controls: controls("extShare"),
  }),
  check({
    id: "gws_drive_publishing_disabled",
    cis: "3.1.2.1.1.2",
    title: "Users cannot publish files to the web or make them visible to anyone",
    severity: "HIGH",
    settings: ["drive.publishing_allowed"],
    expected:
      "Allow users to publish files on the web or make them visible to the world as public or unlisted files: off",
    test: is("drive.publishing_allowed", false),
    fix: "Admin console > Apps > Google Workspace > Drive and Docs > Sharing settings > Sharing options: uncheck When sharing outside of the organization is allowed, users can make files and published web content visible to anyone with the link",
    controls: controls("publicLink"),
  }),
  check({
    id: "gws_drive_sharing_allowlisted_domains",
    cis: "3.1.2.1.1.3",
    title: "Sharing outside the organization is limited to allowlisted domains",
    severity: "HIGH",
    settings: ["drive.external_sharing"],
    expected: "Sharing outside of the organization: Allowlisted domains (or Off)",
    test: oneOf("drive.external_sharing", ["ALLOWLISTED_DOMAINS", "DISALLOWED"]),
    fix: "Admin console > Apps > Google Workspace > Drive and Docs > Sharing settings > Sharing options > Sharing outside of the organization: ALLOWLISTED DOMAINS, and list the partner domains under Account > Domains > Allowlisted domains",
    controls: controls("extShare"),
  }),
  check({
    id: "gws_drive_allowlisted_sharing_warning",
    cis: "3.1.2.1.1.4",
    title: "Users are warned when they share a file with an allowlisted domain",
    severity: "LOW",
    settings: ["drive.allowlisted_sharing_warning"],
    expected:
      "Warn when files owned by users or shared drives are shared with users in allowlisted domains: on",
    test: is("drive.allowlisted_sharing_warning", true),
    fix: "Admin console > Apps > Google Workspace > Drive and Docs > Sharing settings > Sharing options: check Warn when files owned by users or shared drives in this organization are shared with users in allowlisted domains",
    controls: controls("extShare"),
  }),
  check({
    id: "gws_drive_access_checker_recipients_only",
    cis: "3.1.2.1.1.5",
    title: "Access Checker suggests sharing with the recipients only",
    severity: "MEDIUM",
    settings: ["drive.access_checker"],
    expected: "Access Checker: Recipients only",
    test: is("drive.access_checker", "RECIPIENTS_ONLY"),
    fix: "Admin console > Apps > Google Workspace > Drive and Docs > Sharing settings > Sharing options > Access Checker: Recipients only",
    controls: controls("publicLink"),
  }),
  check({
    id: "gws_drive_internal_distribution_only",
    cis: "3.1.2.1.1.6",
    title: "Only users inside the organization can distribute content outside it",
    severity: "MEDIUM",
    settings: ["drive.external_distribution"],
    expected: "Distributing content outside of the organization: Only users in the organization (or no one)",
    test: oneOf("drive.external_distribution", ["ELIGIBLE_INTERNAL_USERS", "NONE"]),
    fix: "Admin console > Apps > Google Workspace > Drive and Docs > Sharing settings > Sharing options > Distributing content outside of the organization: Only users in the organization",
    controls: controls("extShare"),
  }),
  check({
    id: "gws_shared_drive_creation_allowed",
    cis: "3.1.2.1.2.1",
    title: "Users can create shared drives, so team files outlive their owners' accounts",
    severity: "LOW",
    settings: ["drive.shared_drive_creation_allowed"],
    expected: "Prevent users in the organization from creating new shared drives: unchecked",
    test: is("drive.shared_drive_creation_allowed", true),
    fix: "Admin console > Apps > Google Workspace > Drive and Docs > Sharing settings > Shared drive creation: uncheck Prevent users in this organization from creating new shared drives",
    controls: controls("sharedDrive"),
  }),
  check({
    id: "gws_shared_drive_managers_cannot_override",
    cis: "3.1.2.1.2.2",
    title: "Shared drive managers cannot override the shared drive settings",
    severity: "MEDIUM",
    settings: ["drive.shared_drive_managers_override"],
    expected: "Allow members with manager access to override the settings below: off",
    test: is("drive.shared_drive_managers_override", false),
    fix: "Admin console > Apps > Google Workspace > Drive and Docs > Sharing settings > Shared drive creation: uncheck Allow members with manager access to override the settings below",
    controls: controls("sharedDrive"),
  }),
  check({
    id: "gws_shared_drive_members_only",
    cis: "3.1.2.1.2.3",
    title: "Shared drive files are accessible to the drive's members only",
    severity: "MEDIUM",
    settings: ["drive.shared_drive_non_member_access"],
    expected: "Allow people who aren't shared drive members to be added to files: off",
    test: is("drive.shared_drive_non_member_access", false),
    fix: "Admin console > Apps > Google Workspace > Drive and Docs > Sharing settings > Shared drive creation: uncheck Allow people who aren't shared drive members to be added to files",
    controls: controls("sharedDrive"),
  }),
  check({
    id: "gws_shared_drive_download_restricted",
    cis: "3.1.2.1.2.4",
    title: "Viewers and commenters cannot download, print or copy shared drive files",
    severity: "LOW",
    settings: ["drive.shared_drive_download_print_copy"],
    expected:
      "Allow viewers and commenters to download, print, and copy files: off (editors or managers only)",
    test: oneOf("drive.shared_drive_download_print_copy", ["EDITORS_ONLY", "MANAGERS_ONLY"]),
    fix: "Admin console > Apps > Google Workspace > Drive and Docs > Sharing settings > Shared drive creation: uncheck Allow viewers and commenters to download, print, and copy files",
    controls: controls("sharedDrive"),
  }),
  check({
    id: "gws_drive_desktop_disabled",
    cis: "3.1.2.2.2",
    title: "Google Drive for desktop is turned off",
    severity: "LOW",
    settings: ["drive.desktop_allowed"],
    expected: "Allow Google Drive for desktop in your organization: off",
    test: is("drive.desktop_allowed", false),
    fix: "Admin console > Apps > Google Workspace > Drive and Docs > Features and Applications > Google Drive for desktop: uncheck Allow Google Drive for desktop in your organization",
    controls: controls("mailExfil"),
  }),
  // 3.1.3 Gmail
  check({
    id: "gws_gmail_delegation_disabled",
    cis: "3.1.3.1.1",
    title: "Users cannot delegate access to their mailbox",
    severity: "MEDIUM",
    settings: ["gmail.mail_delegation"],
    expected: "Mail delegation: Let users delegate access to their mailbox to other users in the domain, off",
    test: is("gmail.mail_delegation", false),
    fix: "Admin console > Apps > Google Workspace > Gmail > User settings > Mail delegation: uncheck Let users delegate access to their mailbox to other users in the domain",
    controls: controls("admin"),
  }),
  ...gmailProtections(),
  check({
    id: "gws_gmail_pop_imap_disabled",
    cis: "3.1.3.5.1",
    title: "POP and IMAP access is off for all users",
    severity: "MEDIUM",
    settings: ["gmail.pop_access", "gmail.imap_access"],
    expected: "POP access: off; IMAP access: off",
    test: (v) => v["gmail.pop_access"] === false && v["gmail.imap_access"] === false,
    fix: "Admin console > Apps > Google Workspace > Gmail > End User Access > POP and IMAP access: uncheck Enable IMAP access for all users and Enable POP access for all users",
    controls: controls("credentials", "mailExfil"),
  }),
  check({
    id: "gws_gmail_auto_forwarding_disabled",
    cis: "3.1.3.5.2",
    title: "Users cannot forward incoming mail automatically",
    severity: "HIGH",
    settings: ["gmail.auto_forwarding"],
    expected:
      "Automatic forwarding: Allow users to automatically forward incoming email to another address, off",
    test: is("gmail.auto_forwarding", false),
    fix: "Admin console > Apps > Google Workspace > Gmail > End User Access > Automatic forwarding: uncheck Allow users to automatically forward incoming email to another address",
    controls: controls("mailExfil"),
  }),
  check({
    id: "gws_gmail_outbound_gateway_disabled",
    cis: "3.1.3.5.3",
    title: "Users cannot send mail through external SMTP servers",
    severity: "MEDIUM",
    settings: ["gmail.per_user_outbound_gateway"],
    expected: "Allow per-user outbound gateways: off",
    test: is("gmail.per_user_outbound_gateway", false),
    fix: "Admin console > Apps > Google Workspace > Gmail > End User Access > Allow per-user outbound gateways: uncheck Allow users to send mail through an external SMTP server",
    controls: controls("mailExfil"),
  }),
  check({
    id: "gws_gmail_enhanced_scanning_enabled",
    cis: "3.1.3.6.1",
    title: "Enhanced pre-delivery message scanning is on",
    severity: "MEDIUM",
    settings: ["gmail.enhanced_pre_delivery_scanning"],
    expected:
      "Enhanced pre-delivery message scanning: Enables improved detection of suspicious content prior to delivery, on",
    test: is("gmail.enhanced_pre_delivery_scanning", true),
    fix: "Admin console > Apps > Google Workspace > Gmail > Spam, Phishing and Malware > Enhanced pre-delivery message scanning: check Enables improved detection of suspicious content prior to delivery",
    controls: controls("malware"),
  }),
  // 3.1.4 Chat
  check({
    id: "gws_chat_external_file_sharing_disabled",
    cis: "3.1.4.1.1",
    title: "Files cannot be shared in Chat with people outside the organization",
    severity: "MEDIUM",
    settings: ["chat.external_file_sharing"],
    expected: "Chat File Sharing > External filesharing: No files",
    test: is("chat.external_file_sharing", "NO_FILES"),
    fix: "Admin console > Apps > Google Workspace > Google Chat > Chat File Sharing > External filesharing: No files",
    controls: controls("extShare"),
  }),
  check({
    id: "gws_chat_external_restricted",
    cis: "3.1.4.2.1",
    title: "Chat with people outside the organization is limited to allowlisted domains",
    severity: "MEDIUM",
    settings: ["chat.external_chat"],
    expected: "External chat settings > Chat externally: off, or on for allowlisted domains only",
    test: oneOf("chat.external_chat", ["OFF", "TRUSTED_DOMAINS"]),
    fix: "Admin console > Apps > Google Workspace > Google Chat > External Chat Settings > Chat externally: ON, with Only allow this for allowlisted domains checked (or OFF)",
    controls: controls("extShare"),
  }),
  // 3.1.6 Groups for Business
  check({
    id: "gws_groups_external_access_private",
    cis: "3.1.6.1",
    title: "Groups cannot be accessed from outside the organization",
    severity: "MEDIUM",
    settings: ["groups.external_access"],
    expected: "Accessing groups from outside this organization: Private",
    test: is("groups.external_access", "DOMAIN_USERS_ONLY"),
    fix: "Admin console > Apps > Google Workspace > Groups for Business > Sharing options > Accessing groups from outside this organization: Private",
    controls: controls("extShare"),
  }),
  check({
    id: "gws_groups_creation_restricted",
    cis: "3.1.6.2",
    title: "Only admins create groups, and owners cannot open them to outsiders",
    severity: "MEDIUM",
    settings: ["groups.creation", "groups.owners_allow_external_members", "groups.owners_allow_public_mail"],
    expected:
      "Creating groups: Only organization admins can create groups; group owners cannot allow external members or incoming email from outside the organization",
    test: (v) =>
      v["groups.creation"] === "ADMIN_ONLY" &&
      v["groups.owners_allow_external_members"] === false &&
      v["groups.owners_allow_public_mail"] === false,
    fix: "Admin console > Apps > Google Workspace > Groups for Business > Sharing options > Creating groups: Only organization admins can create groups; uncheck Group owners can allow external members and Group owners can allow incoming email from outside the organization",
    controls: controls("extShare", "admin"),
  }),
  check({
    id: "gws_groups_conversations_members_only",
    cis: "3.1.6.3",
    title: "A new group's conversations are visible to its members only by default",
    severity: "LOW",
    settings: ["groups.view_conversations_default"],
    expected: "Default for permission to view conversations: All group members (or managers)",
    test: oneOf("groups.view_conversations_default", ["GROUP_MEMBERS", "GROUP_MANAGERS"]),
    fix: "Admin console > Apps > Google Workspace > Groups for Business > Sharing options > Default for permission to view conversations: All group members",
    controls: controls("extShare"),
  }),
  check({
    id: "gws_sites_disabled",
    cis: "3.1.7.1",
    title: "Google Sites is off",
    severity: "LOW",
    settings: ["sites.service_status"],
    expected: "Google Sites service status: OFF for everyone",
    test: is("sites.service_status", "DISABLED"),
    fix: "Admin console > Apps > Google Workspace > Sites > Service status: OFF for everyone",
    controls: controls("publicLink"),
  }),
  check({
    id: "gws_external_groups_disabled",
    cis: "3.1.8.1",
    title: "Access to external Google Groups is off",
    severity: "MEDIUM",
    settings: ["groups.consumer_service_status"],
    expected: "Additional Google services > Google Groups: OFF for everyone",
    test: is("groups.consumer_service_status", "DISABLED"),
    fix: "Admin console > Apps > Additional Google services > Google Groups > Service status: OFF for everyone",
    controls: controls("extShare"),
  }),
  // 3.1.9 Marketplace
  check({
    id: "gws_marketplace_apps_allowlisted",
    cis: "3.1.9.1.1",
    title: "Users install only allowlisted Google Workspace Marketplace apps",
    severity: "HIGH",
    settings: ["marketplace.apps_access"],
    expected:
      "Manage access to apps: Allow users to install and run only selected apps from the Marketplace (or none)",
    test: oneOf("marketplace.apps_access", ["ALLOW_LISTED_APPS", "ALLOW_NONE"]),
    fix: "Admin console > Apps > Google Workspace Marketplace apps > Settings > Manage access to apps: Allow users to install and run only selected apps from the Marketplace",
    controls: controls("oauthApp"),
  }),
  // 4.1 Authentication
  check({
    id: "gws_admins_2sv_enforced",
    cis: "4.1.1.1",
    title: "2-Step Verification is enforced for every admin account",
    severity: "CRITICAL",
    settings: ["directory.admins_without_2sv_enforced"],
    expected: "No active super or delegated admin account without 2-Step Verification enforced",
    test: (v) => num(v, "directory.admins_without_2sv_enforced") === 0,
    fix: "Admin console > Security > Authentication > 2-step verification: select the admins' organizational unit, check Allow users to turn on 2-Step Verification and set Enforcement to On",
    controls: controls("adminMfa"),
  }),
  check({
    id: "gws_admins_security_keys",
    cis: "4.1.1.2",
    title: "Admin accounts can sign in with security keys only",
    severity: "HIGH",
    settings: ["security.2sv_methods_admins"],
    expected: "2-Step Verification methods where admins live: Only security key",
    test: is("security.2sv_methods_admins", "PASSKEY_ONLY"),
    fix: "Admin console > Security > Authentication > 2-step verification: select the admins' organizational unit, Methods: Only security key",
    controls: controls("adminMfa"),
  }),
  check({
    id: "gws_2sv_enforced_all_users",
    cis: "4.1.1.3",
    title: "2-Step Verification is enforced for all users",
    severity: "CRITICAL",
    settings: ["security.2sv_enrollment_allowed", "security.2sv_enforced"],
    expected: "Allow users to turn on 2-Step Verification: on; Enforcement: On, in every organizational unit",
    test: (v) => v["security.2sv_enrollment_allowed"] === true && v["security.2sv_enforced"] === true,
    fix: "Admin console > Security > Authentication > 2-step verification: check Allow users to turn on 2-Step Verification and set Enforcement to On for the top-level organizational unit, removing weaker overrides",
    controls: controls("mfa"),
  }),
  check({
    id: "gws_super_admin_recovery_disabled",
    cis: "4.1.2.1",
    title: "Super admins cannot recover their accounts by themselves",
    severity: "MEDIUM",
    settings: ["security.super_admin_account_recovery"],
    expected: "Allow super admins to recover their account: off",
    test: is("security.super_admin_account_recovery", false),
    fix: "Admin console > Security > Authentication > Account recovery > Super admin account recovery: uncheck Allow super admins to recover their account",
    controls: controls("admin", "credentials"),
  }),
  check({
    id: "gws_user_recovery_enabled",
    cis: "4.1.2.2",
    title: "Users can recover their own accounts",
    severity: "LOW",
    settings: ["security.user_account_recovery"],
    expected: "Allow users and non-super admins to recover their account: on",
    test: is("security.user_account_recovery", true),
    fix: "Admin console > Security > Authentication > Account recovery > User account recovery: check Allow users and non-super admins to recover their account",
    controls: controls("credentials"),
  }),
  check({
    id: "gws_advanced_protection_enrollment",
    cis: "4.1.3.1",
    title: "Users can enroll in the Advanced Protection Program",
    severity: "LOW",
    settings: ["security.advanced_protection_enrollment"],
    expected: "Advanced Protection Program > Enrollment: Enable user enrollment",
    test: is("security.advanced_protection_enrollment", true),
    fix: "Admin console > Security > Authentication > Advanced Protection Program > Enrollment: Enable user enrollment",
    controls: controls("mfa"),
  }),
  check({
    id: "gws_password_policy_strong",
    cis: "4.1.5.1",
    title: "Passwords are strong, at least 14 characters, not reused and enforced at sign-in",
    severity: "MEDIUM",
    settings: [
      "security.password_strength",
      "security.password_min_length",
      "security.password_reuse_allowed",
      "security.password_enforced_at_login",
    ],
    expected:
      "Enforce strong password: on; minimum length 14 or more; Allow password reuse: off; Enforce password policy at next sign-in: on",
    test: (v) =>
      v["security.password_strength"] === "STRONG" &&
      (num(v, "security.password_min_length") ?? 0) >= 14 &&
      v["security.password_reuse_allowed"] === false &&
      v["security.password_enforced_at_login"] === true,
    fix: "Admin console > Security > Authentication > Password management: check Enforce strong password, set Minimum length to 14, uncheck Allow password reuse, check Enforce password policy at next sign-in",
    controls: controls("credentials"),
  }),
  // 4.2 Access and data control
  check({
    id: "gws_unconfigured_apps_blocked",
    cis: "4.2.1.1",
    title: "Unconfigured third-party apps cannot access Google data",
    severity: "HIGH",
    settings: ["api_controls.unconfigured_third_party_apps"],
    expected:
      "API controls > Unconfigured third-party apps: Don't allow users to access any third-party apps, or allow only apps that request basic sign-in information",
    test: oneOf("api_controls.unconfigured_third_party_apps", ["BLOCK_ALL", "ALLOW_SIGN_IN_ONLY"]),
    fix: "Admin console > Security > Access and data control > API controls > Unconfigured third-party apps > Change access: Don't allow users to access any third-party apps (or Allow users to access third-party apps that only request basic info needed for Sign in with Google)",
    controls: controls("oauthApp"),
  }),
  check({
    id: "gws_internal_apps_trusted",
    cis: "4.2.1.3",
    title: "Internal apps can access Google Workspace APIs",
    severity: "LOW",
    settings: ["api_controls.trust_internal_apps"],
    expected: "API controls > Trust internal, domain-owned apps: on",
    test: is("api_controls.trust_internal_apps", true),
    fix: "Admin console > Security > Access and data control > API controls > Settings: check Trust internal, domain-owned apps",
    controls: controls("oauthApp"),
  }),
  check({
    id: "gws_session_duration_limited",
    cis: "4.2.4.1",
    title: "Google web sessions last 12 hours or less",
    severity: "MEDIUM",
    settings: ["security.web_session_seconds"],
    expected: "Google session control > Web session duration: 12 hours or less",
    test: (v) => {
      const seconds = num(v, "security.web_session_seconds");
      return seconds !== null && seconds > 0 && seconds <= 12 * 3600;
    },
    fix: "Admin console > Security > Access and data control > Google session control > Web session duration: 12 hours",
    controls: controls("session"),
  }),
  check({
    id: "gws_drive_dlp_rule_active",
    cis: "4.2.3.1",
    title: "A data loss prevention rule protects Google Drive",
    severity: "MEDIUM",
    settings: ["rules.dlp_drive_rule_active"],
    expected: "At least one active DLP rule whose trigger is a Google Drive event",
    test: is("rules.dlp_drive_rule_active", true),
    fix: "Admin console > Security > Access and data control > Data protection > Manage rules > Add rule: a DLP rule scoped to Google Drive (file created, modified, uploaded or shared), status Active",
    controls: controls("publicLink", "extShare"),
  }),
  check({
    id: "gws_less_secure_apps_disabled",
    cis: "4.2.6.1",
    title: "Less secure app access is off",
    severity: "HIGH",
    settings: ["security.less_secure_apps_allowed"],
    expected: "Less secure apps: Disable access to less secure apps",
    test: is("security.less_secure_apps_allowed", false),
    fix: "Admin console > Security > Access and data control > Less secure apps: Disable access to less secure apps (Recommended)",
    controls: controls("credentials", "oauthApp"),
  }),
  // 6 Rules (alert center)
  alertRuleCheck("6.1", "password_changed", "User's password changed", "LOW"),
  alertRuleCheck("6.2", "government_backed_attacks", "Government-backed attacks", "MEDIUM"),
  alertRuleCheck(
    "6.3",
    "suspicious_activity_suspension",
    "User suspended due to suspicious activity",
    "MEDIUM",
  ),
  alertRuleCheck("6.4", "admin_privilege_granted", "User granted Admin privilege", "MEDIUM"),
  alertRuleCheck("6.5", "suspicious_programmatic_login", "Suspicious programmatic login", "MEDIUM"),
  alertRuleCheck("6.6", "suspicious_login", "Suspicious login", "MEDIUM"),
  alertRuleCheck("6.7", "leaked_password", "Leaked password", "MEDIUM"),
  alertRuleCheck("6.8", "employee_spoofing", "Gmail potential employee spoofing", "MEDIUM"),
];
