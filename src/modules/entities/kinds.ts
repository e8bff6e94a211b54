/** Edge-kind lists of BloodHound's schema that the entity traversals walk (reference §3.3, §4.7). */

/** `ad.ACLRelationships()`. */
export const ACL_KINDS = [
  'AllExtendedRights', 'ForceChangePassword', 'AddMember', 'AddAllowedToAct', 'GenericAll', 'WriteDacl', 'WriteOwner',
  'GenericWrite', 'ReadLAPSPassword', 'ReadGMSAPassword', 'Owns', 'AddSelf', 'WriteSPN', 'AddKeyCredentialLink', 'GetChanges',
  'GetChangesAll', 'GetChangesInFilteredSet', 'WriteAccountRestrictions', 'WriteGPLink', 'SyncLAPSPassword', 'DCSync',
  'ManageCertificates', 'ManageCA', 'Enroll', 'WritePKIEnrollmentFlag', 'WritePKINameFlag', 'WriteOwnerLimitedRights', 'OwnsLimitedRights',
] as const;

/** The ADCS escalation edges into a domain (ADCSESC13 is not among them, as in BloodHound). */
export const ADCS_ESCALATION_KINDS = ['GoldenCert', 'ADCSESC1', 'ADCSESC3', 'ADCSESC4', 'ADCSESC6a', 'ADCSESC6b', 'ADCSESC9a', 'ADCSESC9b', 'ADCSESC10a', 'ADCSESC10b'];

/** `ad.PathfindingRelationships()`. */
export const AD_PATH_KINDS = [
  'Owns', 'GenericAll', 'GenericWrite', 'WriteOwner', 'WriteDacl', 'MemberOf', 'ForceChangePassword', 'AllExtendedRights', 'AddMember',
  'HasSession', 'GPLink', 'AllowedToDelegate', 'CoerceToTGT', 'AllowedToAct', 'AdminTo', 'CanPSRemote', 'CanRDP', 'ExecuteDCOM',
  'HasSIDHistory', 'AddSelf', 'DCSync', 'ReadLAPSPassword', 'ReadGMSAPassword', 'DumpSMSAPassword', 'SQLAdmin', 'AddAllowedToAct',
  'WriteSPN', 'AddKeyCredentialLink', 'SyncLAPSPassword', 'WriteAccountRestrictions', 'WriteGPLink', 'GoldenCert', 'ADCSESC1',
  'ADCSESC3', 'ADCSESC4', 'ADCSESC6a', 'ADCSESC6b', 'ADCSESC9a', 'ADCSESC9b', 'ADCSESC10a', 'ADCSESC10b', 'ADCSESC13',
  'SyncedToEntraUser', 'CoerceAndRelayNTLMToSMB', 'CoerceAndRelayNTLMToADCS', 'WriteOwnerLimitedRights', 'OwnsLimitedRights',
  'ClaimSpecialIdentity', 'CoerceAndRelayNTLMToLDAP', 'CoerceAndRelayNTLMToLDAPS', 'ContainsIdentity', 'PropagatesACEsTo',
  'GPOAppliesTo', 'CanApplyGPO', 'HasTrustKeys', 'ManageCA', 'ManageCertificates', 'Contains', 'DCFor', 'SameForestTrust',
  'SpoofSIDHistory', 'AbuseTGTDelegation',
];

/** `azure.PathfindingRelationships()`. */
export const AZURE_PATH_KINDS = [
  'AZAvereContributor', 'AZContributor', 'AZGetCertificates', 'AZGetKeys', 'AZGetSecrets', 'AZHasRole', 'AZMemberOf', 'AZOwner',
  'AZRunsAs', 'AZVMContributor', 'AZAutomationContributor', 'AZKeyVaultContributor', 'AZVMAdminLogin', 'AZAddMembers', 'AZAddSecret',
  'AZExecuteCommand', 'AZGlobalAdmin', 'AZPrivilegedAuthAdmin', 'AZGrant', 'AZGrantSelf', 'AZPrivilegedRoleAdmin', 'AZResetPassword',
  'AZUserAccessAdministrator', 'AZOwns', 'AZCloudAppAdmin', 'AZAppAdmin', 'AZAddOwner', 'AZManagedIdentity', 'AZAKSContributor',
  'AZNodeResourceGroup', 'AZWebsiteContributor', 'AZLogicAppContributor', 'AZMGAddMember', 'AZMGAddOwner', 'AZMGAddSecret',
  'AZMGGrantAppRoles', 'AZMGGrantRole', 'SyncedToADUser', 'AZRoleEligible', 'AZRoleApprover', 'AZContains',
];

/** `ad.Relationships()`: every AD relationship kind of the schema. */
export const AD_RELATIONSHIPS = [
  'Owns', 'GenericAll', 'GenericWrite', 'WriteOwner', 'WriteDacl', 'MemberOf', 'ForceChangePassword', 'AllExtendedRights', 'AddMember',
  'HasSession', 'Contains', 'GPLink', 'AllowedToDelegate', 'CoerceToTGT', 'GetChanges', 'GetChangesAll', 'GetChangesInFilteredSet',
  'CrossForestTrust', 'SameForestTrust', 'SpoofSIDHistory', 'AbuseTGTDelegation', 'AllowedToAct', 'AdminTo', 'CanPSRemote', 'CanRDP',
  'ExecuteDCOM', 'HasSIDHistory', 'AddSelf', 'DCSync', 'ReadLAPSPassword', 'ReadGMSAPassword', 'DumpSMSAPassword', 'SQLAdmin',
  'AddAllowedToAct', 'WriteSPN', 'AddKeyCredentialLink', 'LocalToComputer', 'MemberOfLocalGroup', 'RemoteInteractiveLogonRight',
  'SyncLAPSPassword', 'WriteAccountRestrictions', 'WriteGPLink', 'RootCAFor', 'DCFor', 'PublishedTo', 'ManageCertificates', 'ManageCA',
  'DelegatedEnrollmentAgent', 'Enroll', 'HostsCAService', 'WritePKIEnrollmentFlag', 'WritePKINameFlag', 'NTAuthStoreFor',
  'TrustedForNTAuth', 'EnterpriseCAFor', 'IssuedSignedBy', 'GoldenCert', 'EnrollOnBehalfOf', 'OIDGroupLink', 'ExtendedByPolicy',
  'ADCSESC1', 'ADCSESC3', 'ADCSESC4', 'ADCSESC6a', 'ADCSESC6b', 'ADCSESC9a', 'ADCSESC9b', 'ADCSESC10a', 'ADCSESC10b', 'ADCSESC13',
  'SyncedToEntraUser', 'CoerceAndRelayNTLMToSMB', 'CoerceAndRelayNTLMToADCS', 'WriteOwnerLimitedRights', 'WriteOwnerRaw',
  'OwnsLimitedRights', 'OwnsRaw', 'ClaimSpecialIdentity', 'CoerceAndRelayNTLMToLDAP', 'CoerceAndRelayNTLMToLDAPS', 'ContainsIdentity',
  'PropagatesACEsTo', 'GPOAppliesTo', 'CanApplyGPO', 'HasTrustKeys', 'ProtectAdminGroups',
];

/** `azure.Relationships()`: every Azure relationship kind of the schema. */
export const AZURE_RELATIONSHIPS = [
  'AZAvereContributor', 'AZContains', 'AZContributor', 'AZGetCertificates', 'AZGetKeys', 'AZGetSecrets', 'AZHasRole', 'AZMemberOf',
  'AZOwner', 'AZRunsAs', 'AZVMContributor', 'AZAutomationContributor', 'AZKeyVaultContributor', 'AZVMAdminLogin', 'AZAddMembers',
  'AZAddSecret', 'AZExecuteCommand', 'AZGlobalAdmin', 'AZPrivilegedAuthAdmin', 'AZGrant', 'AZGrantSelf', 'AZPrivilegedRoleAdmin',
  'AZResetPassword', 'AZUserAccessAdministrator', 'AZOwns', 'AZScopedTo', 'AZCloudAppAdmin', 'AZAppAdmin', 'AZAddOwner',
  'AZManagedIdentity', 'AZMGApplication_ReadWrite_All', 'AZMGAppRoleAssignment_ReadWrite_All', 'AZMGDirectory_ReadWrite_All',
  'AZMGGroup_ReadWrite_All', 'AZMGGroupMember_ReadWrite_All', 'AZMGRoleManagement_ReadWrite_Directory',
  'AZMGServicePrincipalEndpoint_ReadWrite_All', 'AZAKSContributor', 'AZNodeResourceGroup', 'AZWebsiteContributor',
  'AZLogicAppContributor', 'AZMGAddMember', 'AZMGAddOwner', 'AZMGAddSecret', 'AZMGGrantAppRoles', 'AZMGGrantRole', 'SyncedToADUser',
  'AZRoleEligible', 'AZRoleApprover',
];

/** The seven abusable app-role kinds. */
export const AZ_APP_ROLE_KINDS = [
  'AZMGApplication_ReadWrite_All', 'AZMGAppRoleAssignment_ReadWrite_All', 'AZMGDirectory_ReadWrite_All', 'AZMGGroup_ReadWrite_All',
  'AZMGGroupMember_ReadWrite_All', 'AZMGRoleManagement_ReadWrite_Directory', 'AZMGServicePrincipalEndpoint_ReadWrite_All',
];
