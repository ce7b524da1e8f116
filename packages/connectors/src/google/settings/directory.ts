import type { TGAdminUser } from "./api";
import type { TSettingDef } from "./shapes";

export const active = (u: TGAdminUser) => !u.suspended && !u.archived;
const DIRECTORY_ADMINS = "GET /admin/directory/v1/users?query=isAdmin=true / isDelegatedAdmin=true";

// Admin SDK Directory
export const DIRECTORY_SETTINGS: readonly TSettingDef[] = [
  {
    kind: "directory",
    key: "directory.super_admin_count",
    title: "Active super administrator accounts",
    source: `${DIRECTORY_ADMINS} (isAdmin, suspended)`,
    compute: (admins) => admins.filter((u) => u.isAdmin && active(u)).length,
    demo: 3,
  },
  {
    kind: "directory",
    key: "directory.admins_without_2sv_enforced",
    title: "Active admin accounts (super and delegated) without 2-Step Verification enforced",
    source: `${DIRECTORY_ADMINS} (isEnforcedIn2Sv)`,
    compute: (admins) => admins.filter((u) => active(u) && u.isEnforcedIn2Sv !== true).length,
    demo: 0,
  },
  {
    kind: "roles",
    key: "directory.super_admins_with_other_roles",
    title: "Active super admin accounts that also hold another admin role",
    source:
      "GET /admin/directory/v1/customer/my_customer/roles (isSuperAdminRole) and /roleassignments (assignedTo)",
    compute: (admins, { superAdminRoleIds, assignments }) =>
      admins.filter(
        (u) =>
          u.isAdmin &&
          active(u) &&
          assignments.some(
            (a) => a.assignedTo === u.id && a.roleId !== undefined && !superAdminRoleIds.has(a.roleId),
          ),
      ).length,
    demo: 1,
  },
];
