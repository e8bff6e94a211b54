/**
 * AD CS escalations decided by templates and CAs alone (BloodHound packages/go/analysis/ad/esc3.go,
 * esc4.go, esc13.go; run per enterprise CA whose edges go to a domain, see adcs-esc-shared.ts `perCa`).
 * "Enrollers" are a template's Enroll / GenericAll / AllExtendedRights principals and a CA's Enroll
 * principals; "⨯" is BloodHound's cross product (context.ts `crossProduct`).
 *   ADCSESC3  → each domain, from the CA (CA2) with a published template T2 (authentication enabled, no
 *             manager approval) and each template T1 –EnrollOnBehalfOf→ T2 (no manager approval; schema 1
 *             or no authorized signature) published to some CA1: T1 enrollers ⨯ T2 enrollers ⨯ CA1 enrollers
 *             ⨯ CA2 enrollers, ⨯ T2's DelegatedEnrollmentAgent principals when CA2 has enrollment agent
 *             restrictions (CA2 must say whether they were collected); users dropped unless T1 allows a user subject
 *   ADCSESC4  → each domain, for each published template whose `enrolleesuppliessubject` and
 *             `requiresmanagerapproval` are known: CA enrollers ⨯ template controllers (Owns / GenericAll /
 *             WriteDacl / WriteOwner), CA enrollers ⨯ GenericWrite ⨯ (Enroll | AllExtendedRights); and when
 *             the template has authentication and schema 1 or no authorized signature, CA enrollers ⨯
 *             (Enroll | AllExtendedRights) ⨯ WritePKINameFlag ⨯ WritePKIEnrollmentFlag, ⨯ WritePKIEnrollmentFlag
 *             alone when the enrollee supplies the subject, ⨯ WritePKINameFlag alone without manager approval
 *   ADCSESC13 → the group an issuance policy of the template is OIDGroupLink'ed to (template –ExtendedByPolicy→
 *             policy –OIDGroupLink→ group), when the group is contained in (or trusted by, SameForestTrust)
 *             one of the CA's domains: CA enrollers ⨯ template enrollers, for templates without manager
 *             approval, with authentication, schema 1 or no authorized signature; users dropped unless the
 *             template allows a user subject
 */
import { bool, hasKind, num, type AnalysisContext, type AnalysisNode } from './context.ts';
import { caEnrollers, emitAll, noSignatureRequired, once, perCa, startNodes, templateEnrollers, withoutUsersUnlessValid } from './adcs-esc-shared.ts';

const validAsAgentTemplate = (t: AnalysisNode): boolean => {
  if (bool(t, 'requiresmanagerapproval') !== false) return false;
  const schema = num(t, 'schemaversion');
  if (schema === 1) return true;
  if (schema === undefined || schema <= 1) return false;
  const signatures = num(t, 'authorizedsignatures');
  return signatures !== undefined && signatures <= 0;
};

const validAsTargetTemplate = (t: AnalysisNode): boolean =>
  bool(t, 'authenticationenabled') === true && bool(t, 'requiresmanagerapproval') === false;

export async function adcsEsc3(ctx: AnalysisContext): Promise<void> {
  await perCa(ctx, async (pki, ca2, domains, published) => {
    const collected = bool(ca2, 'enrollmentagentrestrictionscollected');
    if (collected === undefined) return;
    const restricted = collected ? bool(ca2, 'hasenrollmentagentrestrictions') : false;
    if (restricted === undefined) return;
    const publishedTo = new Map<number, AnalysisNode[]>();
    for (const [caId, templates] of pki.published) {
      const ca = pki.ecas.find((e) => e.id === caId)!;
      for (const t of templates) publishedTo.set(t.id, [...(publishedTo.get(t.id) ?? []), ca]);
    }
    const results = new Set<number>();
    for (const t2 of published.filter(validAsTargetTemplate)) {
      const agents = (await startNodes(ctx, t2.id, ['EnrollOnBehalfOf'])).filter((t) => hasKind(t, 'CertTemplate') && validAsAgentTemplate(t));
      for (const t1 of agents) {
        const delegated = restricted ? [await ctx.firstDegree(t2.id, ['DelegatedEnrollmentAgent'])] : [];
        for (const ca1 of publishedTo.get(t1.id) ?? []) {
          const sets = [await templateEnrollers(ctx, t1), await templateEnrollers(ctx, t2), await caEnrollers(ctx, ca1), await caEnrollers(ctx, ca2), ...delegated];
          for (const p of await withoutUsersUnlessValid(ctx, await ctx.crossProduct(sets), t1)) results.add(p);
        }
      }
    }
    emitAll(ctx, results, domains, 'ADCSESC3');
  });
}

const controllers = (ctx: AnalysisContext, t: AnalysisNode) =>
  once(ctx, `controllers:${t.id}`, () => ctx.firstDegree(t.id, ['Owns', 'GenericAll', 'WriteDacl', 'WriteOwner']));

export async function adcsEsc4(ctx: AnalysisContext): Promise<void> {
  await perCa(ctx, async (_pki, eca, domains, published) => {
    const onCa = await caEnrollers(ctx, eca);
    const results = new Set<number>();
    const add = async (...sets: AnalysisNode[][]) => {
      for (const p of await ctx.crossProduct([onCa, ...sets])) results.add(p);
    };
    for (const t of published) {
      const suppliesSubject = bool(t, 'enrolleesuppliessubject');
      const managerApproval = bool(t, 'requiresmanagerapproval');
      if (suppliesSubject === undefined || managerApproval === undefined) continue;
      const genericWrite = await startNodes(ctx, t.id, ['GenericWrite']);
      const enroll = await startNodes(ctx, t.id, ['Enroll', 'AllExtendedRights']);
      const nameFlag = await startNodes(ctx, t.id, ['WritePKINameFlag']);
      const enrollmentFlag = await startNodes(ctx, t.id, ['WritePKIEnrollmentFlag']);
      await add(await controllers(ctx, t));
      await add(genericWrite, enroll);
      if (bool(t, 'authenticationenabled') !== true || !noSignatureRequired(t)) continue;
      await add(enroll, nameFlag, enrollmentFlag);
      if (suppliesSubject) await add(enroll, enrollmentFlag);
      if (!managerApproval) await add(enroll, nameFlag);
    }
    emitAll(ctx, results, domains, 'ADCSESC4');
  });
}

const validForEsc13 = (t: AnalysisNode): boolean =>
  bool(t, 'requiresmanagerapproval') === false && bool(t, 'authenticationenabled') === true && noSignatureRequired(t);

/** The groups an issuance policy of the template links to. */
async function linkedGroups(ctx: AnalysisContext, template: AnalysisNode): Promise<AnalysisNode[]> {
  const policies = (await startNodesOut(ctx, [template.id], ['ExtendedByPolicy'])).filter((p) => hasKind(p, 'IssuancePolicy'));
  if (!policies.length) return [];
  return (await startNodesOut(ctx, policies.map((p) => p.id), ['OIDGroupLink'])).filter((g) => hasKind(g, 'Group'));
}

async function startNodesOut(ctx: AnalysisContext, starts: number[], kinds: string[]): Promise<AnalysisNode[]> {
  const edges = await ctx.edgesFrom(starts, kinds);
  return [...(await ctx.nodes(new Set(edges.map((e) => e.end)))).values()].sort((a, b) => a.id - b.id);
}

/** The domains that contain the group (Contains, inbound) and those that reach them by SameForestTrust. */
const domainsOver = (ctx: AnalysisContext, group: number) => once(ctx, `contained:${group}`, async () => {
  const seen = new Set<number>([group]);
  for (let frontier = [group]; frontier.length;) {
    const edges = await ctx.edgesInto(frontier, ['Contains', 'SameForestTrust']);
    frontier = [...new Set(edges.map((e) => e.start))].filter((id) => !seen.has(id));
    for (const id of frontier) seen.add(id);
  }
  return new Set([...(await ctx.nodes(seen)).values()].filter((n) => hasKind(n, 'Domain')).map((n) => n.id));
});

export async function adcsEsc13(ctx: AnalysisContext): Promise<void> {
  await perCa(ctx, async (_pki, eca, domains, published) => {
    for (const t of published.filter(validForEsc13)) {
      const groups = await linkedGroups(ctx, t);
      if (!groups.length) continue;
      const principals = await withoutUsersUnlessValid(ctx, await ctx.crossProduct([await caEnrollers(ctx, eca), await templateEnrollers(ctx, t)]), t);
      for (const g of groups) {
        const over = await domainsOver(ctx, g.id);
        if (domains.some((d) => over.has(d))) emitAll(ctx, principals, [g.id], 'ADCSESC13');
      }
    }
  });
}
