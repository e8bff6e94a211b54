/**
 * AD CS escalations that depend on how the domain controllers map certificates to accounts (BloodHound
 * packages/go/analysis/ad/esc6.go, esc9.go, esc10.go, adcscache.go; run per enterprise CA whose edges go
 * to a domain, see adcs-esc-shared.ts `perCa`). A domain's forest is the domain and every domain reaching
 * it by SameForestTrust (inbound, transitively); its DCs are the computers –DCFor→ one of those domains.
 *   UPN mapping   a DC of the forest has `certificatemappingmethodsraw` ≠ -1 with the UPN bit (0x4) set
 *   weak binding  a DC of the forest has `strongcertificatebindingenforcementraw` 0, 1 or -1 (not set)
 * Template conditions (every flag named must be present): no manager approval; schema 1 or no authorized
 * signature; "Schannel" = `schannelauthenticationenabled`, else client-auth / any-purpose / no EKU.
 *   ADCSESC6a  → each domain, when the CA has `isuserspecifiessanenabled` (and says it was collected):
 *              template enrollers ⨯ CA enrollers of templates with `nosecurityextension` and authentication;
 *              users dropped unless the template allows a user subject
 *   ADCSESC6b  the same with Schannel templates (no security-extension condition), → the domains with UPN mapping
 *   ADCSESC9a  → the domains with weak binding: the attackers (direct GenericAll / GenericWrite / Owns /
 *              WriteOwner / WriteDacl holders that are groups, users or computers) of the victims (template
 *              and CA enrollers, see `victims`; users dropped unless the template allows a user subject) of
 *              templates with authentication, `nosecurityextension`, no enrollee-supplied subject, and a UPN
 *              or SPN subject alternative name required
 *   ADCSESC9b  the same with a DNS name required instead, computer victims only (no user filter)
 *   ADCSESC10a as ESC9a with Schannel instead of authentication and no `nosecurityextension` condition,
 *              → the domains with UPN mapping
 *   ADCSESC10b as ESC9b with Schannel, → the domains with UPN mapping
 */
import { bool, hasKind, num, type AnalysisContext, type AnalysisNode } from './context.ts';
import {
  attackers, caEnrollers, emitAll, noSignatureRequired, once, perCa, schannelAuthentication, templateEnrollers, victims, withoutUsersUnlessValid,
} from './adcs-esc-shared.ts';

type Forest = 'upnMapping' | 'weakBinding';

const dcSays: Record<Forest, (dc: AnalysisNode) => boolean> = {
  upnMapping: (dc) => {
    const v = num(dc, 'certificatemappingmethodsraw');
    return v !== undefined && v !== -1 && (v & 4) === 4;
  },
  weakBinding: (dc) => [0, 1, -1].includes(num(dc, 'strongcertificatebindingenforcementraw') ?? NaN),
};

/** Whether a DC of the domain's forest has the weakness (read once per domain and run). */
const forestHas = (ctx: AnalysisContext, domain: number, what: Forest) => once(ctx, `${what}:${domain}`, async () => {
  const forest = new Set<number>([domain]);
  for (let frontier = [domain]; frontier.length;) {
    const edges = await ctx.edgesInto(frontier, ['SameForestTrust']);
    const starts = await ctx.nodes(new Set(edges.map((e) => e.start)));
    frontier = [...starts.values()].filter((n) => hasKind(n, 'Domain') && !forest.has(n.id)).map((n) => n.id);
    for (const id of frontier) forest.add(id);
  }
  const dcs = await ctx.edgesInto(forest, ['DCFor']);
  return [...(await ctx.nodes(new Set(dcs.map((e) => e.start)))).values()].some((dc) => hasKind(dc, 'Computer') && dcSays[what](dc));
});

async function domainsWith(ctx: AnalysisContext, domains: number[], what: Forest): Promise<number[]> {
  const out: number[] = [];
  for (const d of domains) if (await forestHas(ctx, d, what)) out.push(d);
  return out;
}

const baseValid = (t: AnalysisNode) => bool(t, 'requiresmanagerapproval') === false && noSignatureRequired(t);

const esc6Template = (scenarioB: boolean) => (t: AnalysisNode) => baseValid(t) && (scenarioB
  ? schannelAuthentication(t)
  : bool(t, 'nosecurityextension') === true && bool(t, 'authenticationenabled') === true);

function esc6(kind: 'ADCSESC6a' | 'ADCSESC6b') {
  const scenarioB = kind === 'ADCSESC6b';
  return (ctx: AnalysisContext) => perCa(ctx, async (_pki, eca, domains, published) => {
    if (bool(eca, 'isuserspecifiessanenabledcollected') !== true || bool(eca, 'isuserspecifiessanenabled') !== true) return;
    const targets = scenarioB ? await domainsWith(ctx, domains, 'upnMapping') : domains;
    if (!targets.length) return;
    for (const t of published.filter(esc6Template(scenarioB))) {
      const enrollers = await ctx.crossProduct([await templateEnrollers(ctx, t), await caEnrollers(ctx, eca)]);
      emitAll(ctx, await withoutUsersUnlessValid(ctx, enrollers, t), targets, kind);
    }
  });
}

export const adcsEsc6a = esc6('ADCSESC6a');
export const adcsEsc6b = esc6('ADCSESC6b');

/** The subject alternative name a scenario needs: UPN or SPN (a, both flags present), DNS (b). */
const sanRequired = (t: AnalysisNode, scenarioB: boolean): boolean => {
  if (scenarioB) return bool(t, 'subjectaltrequiredns') === true;
  const upn = bool(t, 'subjectaltrequireupn');
  const spn = bool(t, 'subjectaltrequirespn');
  return upn !== undefined && spn !== undefined && (upn || spn);
};

const esc9Template = (scenarioB: boolean) => (t: AnalysisNode) => baseValid(t) && bool(t, 'authenticationenabled') === true
  && bool(t, 'nosecurityextension') === true && bool(t, 'enrolleesuppliessubject') === false && sanRequired(t, scenarioB);

const esc10Template = (scenarioB: boolean) => (t: AnalysisNode) => baseValid(t) && schannelAuthentication(t)
  && bool(t, 'enrolleesuppliessubject') === false && sanRequired(t, scenarioB);

function takeover(kind: 'ADCSESC9a' | 'ADCSESC9b' | 'ADCSESC10a' | 'ADCSESC10b') {
  const scenarioB = kind.endsWith('b');
  const esc9 = kind.startsWith('ADCSESC9');
  const valid = (esc9 ? esc9Template : esc10Template)(scenarioB);
  return (ctx: AnalysisContext) => perCa(ctx, async (_pki, eca, domains, published) => {
    if (!(await caEnrollers(ctx, eca)).length) return;
    const targets = await domainsWith(ctx, domains, esc9 ? 'weakBinding' : 'upnMapping');
    if (!targets.length) return;
    const results = new Set<number>();
    for (const t of published.filter(valid)) {
      if (!(await templateEnrollers(ctx, t)).length) continue;
      let victimIds = await victims(ctx, t, eca);
      if (!scenarioB) victimIds = await withoutUsersUnlessValid(ctx, victimIds, t);
      for (const a of await attackers(ctx, victimIds, scenarioB)) results.add(a);
    }
    emitAll(ctx, results, targets, kind);
  });
}

export const adcsEsc9a = takeover('ADCSESC9a');
export const adcsEsc9b = takeover('ADCSESC9b');
export const adcsEsc10a = takeover('ADCSESC10a');
export const adcsEsc10b = takeover('ADCSESC10b');
