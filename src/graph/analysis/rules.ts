/**
 * BloodHound's AD post-processing as one table, in BloodHound's order (cmd/api/src/analysis/ad/post.go).
 * Each row names the edge kinds it derives (deleted and re-derived on every run: BloodHound's
 * `PostProcessedRelationships`), the upstream source it follows, and the function that derives them.
 * The rows of one family share a file: local-groups.ts, ownership.ts, domain-rights.ts, adcs.ts.
 */
import type { AnalysisContext } from './context.ts';
import { adcsChain, adcsEsc1, enrollOnBehalfOf, goldenCert } from './adcs.ts';
import { adcsEsc3, adcsEsc4, adcsEsc13 } from './adcs-esc.ts';
import { adcsEsc10a, adcsEsc10b, adcsEsc6a, adcsEsc6b, adcsEsc9a, adcsEsc9b } from './adcs-esc-binding.ts';
import { dcSync, hasTrustKeys, protectAdminGroups, syncLapsPassword } from './domain-rights.ts';
import { canRdp, localGroupEdges } from './local-groups.ts';
import { hybridUsers } from './hybrid.ts';
import { relayToAdcs, relayToLdap, relayToSmb } from './ntlm.ts';
import { ownership } from './ownership.ts';

export interface PostProcessingRule {
  /** The edge kinds the rule derives. */
  kinds: string[];
  /** BloodHound's source of the rule (packages/go/analysis/ad/…). */
  upstream: string;
  derive: (ctx: AnalysisContext) => Promise<void>;
}

export const RULES: ReadonlyArray<PostProcessingRule> = [
  { kinds: ['DCSync'], upstream: 'post.go PostDCSync', derive: dcSync },
  { kinds: ['ProtectAdminGroups'], upstream: 'post.go PostProtectAdminGroups', derive: protectAdminGroups },
  { kinds: ['SyncLAPSPassword'], upstream: 'post.go PostSyncLAPSPassword', derive: syncLapsPassword },
  { kinds: ['HasTrustKeys'], upstream: 'post.go PostHasTrustKeys', derive: hasTrustKeys },
  { kinds: ['ExecuteDCOM'], upstream: 'post.go PostLocalGroups (-562)', derive: (ctx) => localGroupEdges(ctx, 'ExecuteDCOM', '-562') },
  { kinds: ['CanPSRemote'], upstream: 'post.go PostLocalGroups (-580)', derive: (ctx) => localGroupEdges(ctx, 'CanPSRemote', '-580') },
  { kinds: ['AdminTo'], upstream: 'post.go PostLocalGroups (-544)', derive: (ctx) => localGroupEdges(ctx, 'AdminTo', '-544') },
  { kinds: ['CanRDP'], upstream: 'post.go PostLocalGroups (-555, URA)', derive: canRdp },
  { kinds: ['TrustedForNTAuth', 'IssuedSignedBy', 'EnterpriseCAFor', 'ExtendedByPolicy'], upstream: 'esc_shared.go (ADCS step 1)', derive: adcsChain },
  { kinds: ['EnrollOnBehalfOf'], upstream: 'esc3.go PostEnrollOnBehalfOf (ADCS step 2)', derive: enrollOnBehalfOf },
  { kinds: ['GoldenCert'], upstream: 'esc_shared.go PostGoldenCert', derive: goldenCert },
  { kinds: ['ADCSESC1'], upstream: 'esc1.go PostADCSESC1', derive: adcsEsc1 },
  { kinds: ['ADCSESC3'], upstream: 'esc3.go PostADCSESC3', derive: adcsEsc3 },
  { kinds: ['ADCSESC4'], upstream: 'esc4.go PostADCSESC4', derive: adcsEsc4 },
  { kinds: ['ADCSESC6a'], upstream: 'esc6.go PostADCSESC6a', derive: adcsEsc6a },
  { kinds: ['ADCSESC6b'], upstream: 'esc6.go PostADCSESC6b', derive: adcsEsc6b },
  { kinds: ['ADCSESC9a'], upstream: 'esc9.go PostADCSESC9a', derive: adcsEsc9a },
  { kinds: ['ADCSESC9b'], upstream: 'esc9.go PostADCSESC9b', derive: adcsEsc9b },
  { kinds: ['ADCSESC10a'], upstream: 'esc10.go PostADCSESC10a', derive: adcsEsc10a },
  { kinds: ['ADCSESC10b'], upstream: 'esc10.go PostADCSESC10b', derive: adcsEsc10b },
  { kinds: ['ADCSESC13'], upstream: 'esc13.go PostADCSESC13', derive: adcsEsc13 },
  { kinds: ['Owns'], upstream: 'owns.go PostOwnsAndWriteOwner', derive: (ctx) => ownership(ctx, 'Owns') },
  { kinds: ['WriteOwner'], upstream: 'owns.go PostOwnsAndWriteOwner', derive: (ctx) => ownership(ctx, 'WriteOwner') },
  { kinds: ['CoerceAndRelayNTLMToSMB'], upstream: 'ntlm.go PostCoerceAndRelayNTLMToSMB', derive: relayToSmb },
  { kinds: ['CoerceAndRelayNTLMToLDAP', 'CoerceAndRelayNTLMToLDAPS'], upstream: 'ntlm.go PostCoerceAndRelayNTLMToLDAP', derive: relayToLdap },
  { kinds: ['CoerceAndRelayNTLMToADCS'], upstream: 'ntlm.go PostCoerceAndRelayNTLMToADCS', derive: relayToAdcs },
  { kinds: ['SyncedToEntraUser', 'SyncedToADUser'], upstream: 'hybrid.go PostHybrid (Azure post-processing)', derive: hybridUsers },
];

/**
 * Every kind BloodHound deletes before re-deriving: `ad.PostProcessedRelationships()` (including the two
 * no pass makes again, GPOAppliesTo and CanApplyGPO) and, from `azure.PostProcessedRelationships()`,
 * SyncedToADUser (Scent has no rule for the other Azure ones). None of them can come from a collector.
 */
export const POST_PROCESSED_KINDS: ReadonlyArray<string> = [
  'DCSync', 'ProtectAdminGroups', 'SyncLAPSPassword', 'CanRDP', 'AdminTo', 'CanPSRemote', 'ExecuteDCOM', 'TrustedForNTAuth',
  'IssuedSignedBy', 'EnterpriseCAFor', 'GoldenCert', 'ADCSESC1', 'ADCSESC3', 'ADCSESC4', 'ADCSESC6a', 'ADCSESC6b', 'ADCSESC10a',
  'ADCSESC10b', 'ADCSESC9a', 'ADCSESC9b', 'ADCSESC13', 'EnrollOnBehalfOf', 'SyncedToEntraUser', 'Owns', 'WriteOwner',
  'ExtendedByPolicy', 'CoerceAndRelayNTLMToADCS', 'CoerceAndRelayNTLMToSMB', 'CoerceAndRelayNTLMToLDAP', 'CoerceAndRelayNTLMToLDAPS',
  'GPOAppliesTo', 'CanApplyGPO', 'HasTrustKeys', 'SyncedToADUser',
];
