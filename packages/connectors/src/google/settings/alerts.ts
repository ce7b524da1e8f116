import { policy, type TPolicySetting, type TSettingDef } from "./shapes";

/**
 * A system-defined alert rule (Admin console > Rules), read as one boolean: on, sending to the
 * alert center, with email notifications reaching all super admins.
 */
function alertRule(key: string, displayName: string, googleDefault: boolean, demo: boolean): TPolicySetting {
  return policy(
    key,
    `Alert rule "${displayName}" is on and emails all super admins`,
    "rule.system_defined_alerts",
    {
      field: `displayName="${displayName}": state, action.alertCenterAction.recipients`,
      googleDefault,
      read: (v) => {
        const action = (v.action as { alertCenterAction?: { recipients?: unknown } } | undefined)
          ?.alertCenterAction;
        const recipients = Array.isArray(action?.recipients)
          ? (action.recipients as Array<Record<string, unknown>>)
          : [];
        return v.state === "ACTIVE" && recipients.some((r) => r.allSuperAdmins === true);
      },
      weaker: (a, b) => (a === true ? b : a),
    },
    demo,
    { where: (v) => v.displayName === displayName, customerLevel: true },
  );
}

// Rules: system-defined alerts (Google's default state as the Admin console ships them)
export const ALERT_RULE_SETTINGS: readonly TSettingDef[] = [
  alertRule("rules.alert_password_changed", "User's password changed", false, false),
  alertRule("rules.alert_government_backed_attacks", "Government-backed attacks", true, true),
  alertRule(
    "rules.alert_suspicious_activity_suspension",
    "User suspended due to suspicious activity",
    true,
    true,
  ),
  alertRule("rules.alert_admin_privilege_granted", "User granted Admin privilege", false, false),
  alertRule("rules.alert_suspicious_programmatic_login", "Suspicious programmatic login", true, true),
  alertRule("rules.alert_suspicious_login", "Suspicious login", true, true),
  alertRule("rules.alert_leaked_password", "Leaked password", true, true),
  alertRule("rules.alert_employee_spoofing", "Gmail potential employee spoofing", true, true),
];
