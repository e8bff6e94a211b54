/**
 * Audit actions: BloodHound's names (`cmd/api/src/model/audit.go`) first, so its clients and log
 * readers find the same words, then Scent's own for routes BloodHound does not audit or does not
 * have. A write route names one of these in its `audit` declaration (src/audit/audit.ts); add new
 * names at the end of the Scent list.
 */
export const BLOODHOUND_ACTIONS = [
  'AcceptEULA', 'AcceptFedEULA', 'LoginAttempt', 'UnauthorizedAccessAttempt',
  'CreateUser', 'UpdateUser', 'DeleteUser',
  'CreateAssetGroup', 'UpdateAssetGroup', 'DeleteAssetGroup', 'DeleteAssetGroupSelector',
  'CreateAuthToken', 'DeleteAuthToken', 'CreateAuthSecret', 'UpdateAuthSecret', 'DeleteAuthSecret',
  'CreateSAMLIdentityProvider', 'UpdateSAMLIdentityProvider', 'CreateOIDCIdentityProvider', 'UpdateOIDCIdentityProvider',
  'CreateSSOIdentityProvider', 'UpdateSSOIdentityProvider', 'DeleteSSOIdentityProvider',
  'AcceptRisk', 'UnacceptRisk', 'ExportRelationshipRisks', 'ExportListRisks', 'ExportAllRisks',
  'DeleteBloodhoundData', 'MutateGraph', 'UpdateParameter',
  'CreateAssetGroupTag', 'UpdateAssetGroupTag', 'DeleteAssetGroupTag',
  'CreateAssetGroupTagSelector', 'UpdateAssetGroupTagSelector', 'DeleteAssetGroupTagSelector',
  'CreateCustomNodeKind', 'UpdateCustomNodeKind', 'DeleteCustomNodeKind',
  'ToggleEarlyAccessFeatureFlag', 'CreateClient', 'ReplaceClientToken',
  'ImportSavedQueries', 'ExportSavedQuery', 'ExportSavedQueries', 'UpdateETACList', 'DeleteETACList',
] as const;

export const SCENT_ACTIONS = [
  'Logout',
  'UpdateClient', 'DeleteClient',
  'CreateEvent', 'UpdateEvent', 'DeleteEvent',
  'CreateJob', 'CancelJob', 'StartJob', 'EndJob',
  'StartFileUpload', 'UploadFile', 'EndFileUpload',
  'CreateSavedQuery', 'UpdateSavedQuery', 'DeleteSavedQuery', 'UpdateSavedQueryPermissions', 'DeleteSavedQueryPermissions',
] as const;

export type AuditAction = (typeof BLOODHOUND_ACTIONS)[number] | (typeof SCENT_ACTIONS)[number];

export const AUDIT_ACTIONS: readonly AuditAction[] = [...BLOODHOUND_ACTIONS, ...SCENT_ACTIONS];

export const AUDIT_STATUSES = ['intent', 'success', 'failure'] as const;
