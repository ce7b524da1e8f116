import type { TMsSharepointSettings } from "./api";
import type { TValues } from "./catalog";

export function fromSharepoint(s: TMsSharepointSettings): TValues {
  return {
    "sharepoint.sharing_capability": s.sharingCapability ?? null,
    "sharepoint.guest_resharing": s.isResharingByExternalUsersEnabled ?? null,
    "sharepoint.sharing_domain_restriction_mode": s.sharingDomainRestrictionMode ?? null,
    "sharepoint.legacy_auth_enabled": s.isLegacyAuthProtocolsEnabled ?? null,
    // "Allow syncing only on computers joined to specific domains": the switch and its domain list.
    "sharepoint.unmanaged_sync_restricted":
      s.isUnmanagedSyncAppForTenantRestricted === undefined
        ? null
        : s.isUnmanagedSyncAppForTenantRestricted && (s.allowedDomainGuidsForSyncApp ?? []).length > 0,
  };
}
