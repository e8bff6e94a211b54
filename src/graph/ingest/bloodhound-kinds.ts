/** BloodHound's AD relationship kinds (graphschema ad.Relationships()): what an SPN target's `Service` may name. */
export const AD_RELATIONSHIP_KINDS = new Set([
  'Owns', 'GenericAll', 'GenericWrite', 'WriteOwner', 'WriteDacl', 'MemberOf', 'ForceChangePassword', 'AllExtendedRights',
  'AddMember', 'HasSession', 'Contains', 'GPLink', 'AllowedToDelegate', 'CoerceToTGT', 'GetChanges', 'GetChangesAll',
  'GetChangesInFilteredSet', 'CrossForestTrust', 'SameForestTrust', 'SpoofSIDHistory', 'AbuseTGTDelegation', 'AllowedToAct',
  'AdminTo', 'CanPSRemote', 'CanRDP', 'ExecuteDCOM', 'HasSIDHistory', 'AddSelf', 'DCSync', 'ReadLAPSPassword',
  'ReadGMSAPassword', 'DumpSMSAPassword', 'SQLAdmin', 'AddAllowedToAct', 'WriteSPN', 'AddKeyCredentialLink',
  'LocalToComputer', 'MemberOfLocalGroup', 'RemoteInteractiveLogonRight', 'SyncLAPSPassword', 'WriteAccountRestrictions',
  'WriteGPLink', 'RootCAFor', 'DCFor', 'PublishedTo', 'ManageCertificates', 'ManageCA', 'DelegatedEnrollmentAgent', 'Enroll',
  'HostsCAService', 'WritePKIEnrollmentFlag', 'WritePKINameFlag', 'NTAuthStoreFor', 'TrustedForNTAuth', 'EnterpriseCAFor',
  'IssuedSignedBy', 'GoldenCert', 'EnrollOnBehalfOf', 'OIDGroupLink', 'ExtendedByPolicy', 'ADCSESC1', 'ADCSESC3', 'ADCSESC4',
  'ADCSESC6a', 'ADCSESC6b', 'ADCSESC9a', 'ADCSESC9b', 'ADCSESC10a', 'ADCSESC10b', 'ADCSESC13', 'SyncedToEntraUser',
  'CoerceAndRelayNTLMToSMB', 'CoerceAndRelayNTLMToADCS', 'WriteOwnerLimitedRights', 'WriteOwnerRaw', 'OwnsLimitedRights',
  'OwnsRaw', 'ClaimSpecialIdentity', 'CoerceAndRelayNTLMToLDAP', 'CoerceAndRelayNTLMToLDAPS', 'ContainsIdentity',
  'PropagatesACEsTo', 'GPOAppliesTo', 'CanApplyGPO', 'HasTrustKeys', 'ProtectAdminGroups',
]);
