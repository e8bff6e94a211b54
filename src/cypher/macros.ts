/**
 * BloodHound's relationship-type shortcuts (`cmd/api/src/queries/rewriter.go`): a relationship pattern
 * naming one of them has its whole type list replaced by the expansion (reference
 * bloodhound-api-surface.md §4.7: `ad.PathfindingRelationships()`, `azure.PathfindingRelationships()`).
 */
export const AD_ATTACK_PATHS = [
  'Owns', 'GenericAll', 'GenericWrite', 'WriteOwner', 'WriteDacl', 'MemberOf', 'ForceChangePassword', 'AllExtendedRights',
  'AddMember', 'HasSession', 'GPLink', 'AllowedToDelegate', 'CoerceToTGT', 'AllowedToAct', 'AdminTo', 'CanPSRemote', 'CanRDP',
  'ExecuteDCOM', 'HasSIDHistory', 'AddSelf', 'DCSync', 'ReadLAPSPassword', 'ReadGMSAPassword', 'DumpSMSAPassword', 'SQLAdmin',
  'AddAllowedToAct', 'WriteSPN', 'AddKeyCredentialLink', 'SyncLAPSPassword', 'WriteAccountRestrictions', 'WriteGPLink',
  'GoldenCert', 'ADCSESC1', 'ADCSESC3', 'ADCSESC4', 'ADCSESC6a', 'ADCSESC6b', 'ADCSESC9a', 'ADCSESC9b', 'ADCSESC10a',
  'ADCSESC10b', 'ADCSESC13', 'SyncedToEntraUser', 'CoerceAndRelayNTLMToSMB', 'CoerceAndRelayNTLMToADCS',
  'WriteOwnerLimitedRights', 'OwnsLimitedRights', 'ClaimSpecialIdentity', 'CoerceAndRelayNTLMToLDAP',
  'CoerceAndRelayNTLMToLDAPS', 'ContainsIdentity', 'PropagatesACEsTo', 'GPOAppliesTo', 'CanApplyGPO', 'HasTrustKeys',
  'ManageCA', 'ManageCertificates', 'Contains', 'DCFor', 'SameForestTrust', 'SpoofSIDHistory', 'AbuseTGTDelegation',
] as const;

export const AZ_ATTACK_PATHS = [
  'AZAvereContributor', 'AZContributor', 'AZGetCertificates', 'AZGetKeys', 'AZGetSecrets', 'AZHasRole', 'AZMemberOf',
  'AZOwner', 'AZRunsAs', 'AZVMContributor', 'AZAutomationContributor', 'AZKeyVaultContributor', 'AZVMAdminLogin',
  'AZAddMembers', 'AZAddSecret', 'AZExecuteCommand', 'AZGlobalAdmin', 'AZPrivilegedAuthAdmin', 'AZGrant', 'AZGrantSelf',
  'AZPrivilegedRoleAdmin', 'AZResetPassword', 'AZUserAccessAdministrator', 'AZOwns', 'AZCloudAppAdmin', 'AZAppAdmin',
  'AZAddOwner', 'AZManagedIdentity', 'AZAKSContributor', 'AZNodeResourceGroup', 'AZWebsiteContributor',
  'AZLogicAppContributor', 'AZMGAddMember', 'AZMGAddOwner', 'AZMGAddSecret', 'AZMGGrantAppRoles', 'AZMGGrantRole',
  'SyncedToADUser', 'AZRoleEligible', 'AZRoleApprover', 'AZContains',
] as const;

export const MACROS: Record<string, readonly string[]> = {
  AD_ATTACK_PATHS,
  AZ_ATTACK_PATHS,
  ALL_ATTACK_PATHS: [...AZ_ATTACK_PATHS, ...AD_ATTACK_PATHS],
};

/** The relationship kinds a pattern's type list stands for (empty = any kind). */
export function expandTypes(types: readonly string[]): string[] {
  const macro = types.find((t) => Object.hasOwn(MACROS, t));
  return macro ? [...MACROS[macro]] : [...types];
}

export function hasMacro(types: readonly string[]): boolean {
  return types.some((t) => Object.hasOwn(MACROS, t));
}
