/**
 * AD CS rules (BloodHound packages/go/analysis/ad/adcs.go, esc_shared.go, adcscache.go, esc1.go, esc3.go).
 * Step 1, from certificate thumbprints and OIDs:
 *   TrustedForNTAuth EnterpriseCA → NTAuthStore whose `certthumbprints` lists the CA's `certthumbprint`
 *   IssuedSignedBy   EnterpriseCA / RootCA / AIACA → any of those whose thumbprint is the source's `certchain[1]`
 *   EnterpriseCAFor  EnterpriseCA → RootCA / AIACA with the same thumbprint
 *   ExtendedByPolicy CertTemplate → IssuancePolicy whose `certtemplateoid` is one of the template's
 *                    `certificatepolicy` OIDs, in the same (non-empty) domain
 * Then, over that chain ("a CA chains properly to a domain": it reaches the domain through
 * IssuedSignedBy / EnterpriseCAFor … RootCAFor, and it is TrustedForNTAuth by an NTAuthStore that is
 * NTAuthStoreFor the domain):
 *   EnrollOnBehalfOf CertTemplate → CertTemplate (esc3.go), for each domain and each properly chained CA
 *                    with published templates: from a published template with the Certificate Request
 *                    Agent EKU, the any-purpose EKU or no EKU to every schema-1 template linked to the
 *                    domain; from a published template with the Certificate Request Agent EKU and without
 *                    any-purpose to every other schema-2+ template with authorizedsignatures ≥ 1 and the
 *                    Certificate Request Agent OID in `applicationpolicies`, linked to the domain
 *   GoldenCert       Computer –HostsCAService→ a CA that chains properly to the domain and has an
 *                    enabled hosting computer → that domain
 *   ADCSESC1         the cross product of a published template's enrollers (Enroll / GenericAll /
 *                    AllExtendedRights) and the CA's enrollers (Enroll) → each such domain, for templates
 *                    without manager approval, with authentication, enrollee-supplied subject, and schema 1
 *                    or no authorized signature
 */
import { bool, hasKind, num, str, strings, type AnalysisContext, type AnalysisEdge, type AnalysisNode } from './context.ts';

export const EKU_ANY_PURPOSE = '2.5.29.37.0';
export const EKU_CERT_REQUEST_AGENT = '1.3.6.1.4.1.311.20.2.1';

const thumbprint = (n: AnalysisNode) => str(n, 'certthumbprint') ?? '';

export async function adcsChain(ctx: AnalysisContext): Promise<void> {
  const ecas = await ctx.nodesOfKind('EnterpriseCA');
  const roots = await ctx.nodesOfKind('RootCA');
  const aias = await ctx.nodesOfKind('AIACA');
  for (const store of await ctx.nodesOfKind('NTAuthStore')) {
    for (const t of strings(store, 'certthumbprints') ?? []) {
      if (t) for (const eca of ecas) if (thumbprint(eca) === t) ctx.emit(eca.id, store.id, 'TrustedForNTAuth');
    }
  }
  const cas = [...ecas, ...roots, ...aias];
  for (const ca of cas) {
    const chain = strings(ca, 'certchain') ?? [];
    if (chain.length > 1) for (const parent of cas) if (thumbprint(parent) === chain[1]) ctx.emit(ca.id, parent.id, 'IssuedSignedBy');
  }
  for (const eca of ecas) {
    const t = thumbprint(eca);
    if (t) for (const ca of [...roots, ...aias]) if (thumbprint(ca) === t) ctx.emit(eca.id, ca.id, 'EnterpriseCAFor');
  }
  const policies = await ctx.nodesOfKind('IssuancePolicy');
  for (const template of await ctx.nodesOfKind('CertTemplate')) {
    const domain = str(template, 'domainsid');
    for (const oid of strings(template, 'certificatepolicy') ?? []) {
      for (const p of policies) if (str(p, 'certtemplateoid') === oid && domain && str(p, 'domainsid') === domain) ctx.emit(template.id, p.id, 'ExtendedByPolicy');
    }
  }
  await ctx.flush();
}

/** What the per-CA rules share (BloodHound's ADCS cache). */
export interface Pki {
  ecas: AnalysisNode[];
  templates: AnalysisNode[];
  domains: AnalysisNode[];
  published: Map<number, AnalysisNode[]>;
  /** CA → domains it chains properly to. */
  chainsTo: Map<number, Set<number>>;
  hosted: Map<number, AnalysisNode[]>;
  /** Template → the domains it links to (PublishedTo, IssuedSignedBy, EnterpriseCAFor, RootCAFor). */
  linked: Map<number, Set<number>>;
}

const pkiOfRun = new WeakMap<AnalysisContext, Promise<Pki>>();

/**
 * The PKI of this analysis run, read once after step 1 (the rules after it write no edge it reads).
 * With no enterprise CA, no template and no domain it costs three indexed reads.
 */
export function loadPki(ctx: AnalysisContext): Promise<Pki> {
  let pki = pkiOfRun.get(ctx);
  if (!pki) pkiOfRun.set(ctx, (pki = readPki(ctx)));
  return pki;
}

async function readPki(ctx: AnalysisContext): Promise<Pki> {
  const ecas = await ctx.nodesOfKind('EnterpriseCA');
  const templates = await ctx.nodesOfKind('CertTemplate');
  const domains = await ctx.nodesOfKind('Domain');
  const caIds = new Set([...ecas, ...(await ctx.nodesOfKind('RootCA')), ...(await ctx.nodesOfKind('AIACA'))].map((n) => n.id));
  const chain = await ctx.edgesFrom(caIds, ['IssuedSignedBy', 'EnterpriseCAFor', 'RootCAFor']);
  const outOf = new Map<number, AnalysisEdge[]>();
  for (const e of chain) outOf.set(e.start, [...(outOf.get(e.start) ?? []), e]);
  const reaches = (from: number): Set<number> => {
    const seen = new Set<number>([from]);
    const domainsReached = new Set<number>();
    for (let queue = [from]; queue.length;) {
      const next: number[] = [];
      for (const id of queue) {
        for (const e of outOf.get(id) ?? []) {
          if (e.kind === 'RootCAFor') domainsReached.add(e.end);
          if (!seen.has(e.end)) {
            seen.add(e.end);
            next.push(e.end);
          }
        }
      }
      queue = next;
    }
    return domainsReached;
  };
  const trusted = await ctx.edgesFrom(ecas.map((e) => e.id), ['TrustedForNTAuth']);
  const storeFor = await ctx.edgesFrom(new Set(trusted.map((t) => t.end)), ['NTAuthStoreFor']);
  const chainsTo = new Map<number, Set<number>>();
  for (const eca of ecas) {
    const viaRoot = reaches(eca.id);
    const viaStore = new Set(storeFor.filter((s) => trusted.some((t) => t.start === eca.id && t.end === s.start)).map((s) => s.end));
    chainsTo.set(eca.id, new Set([...viaRoot].filter((d) => viaStore.has(d))));
  }
  const publishedTo = await ctx.edgesInto(ecas.map((e) => e.id), ['PublishedTo']);
  const templateById = new Map(templates.map((t) => [t.id, t]));
  const published = new Map<number, AnalysisNode[]>();
  const linked = new Map<number, Set<number>>();
  for (const p of publishedTo) {
    const t = templateById.get(p.start);
    if (!t) continue;
    published.set(p.end, [...(published.get(p.end) ?? []), t]);
    linked.set(t.id, new Set([...(linked.get(t.id) ?? []), ...reaches(p.end)]));
  }
  const hosts = await ctx.edgesInto(ecas.map((e) => e.id), ['HostsCAService']);
  const hostNodes = await ctx.nodes(hosts.map((h) => h.start));
  const hosted = new Map<number, AnalysisNode[]>();
  for (const h of hosts) {
    const c = hostNodes.get(h.start);
    if (c && hasKind(c, 'Computer')) hosted.set(h.end, [...(hosted.get(h.end) ?? []), c]);
  }
  return { ecas, templates, domains, published, chainsTo, hosted, linked };
}

const hasEku = (t: AnalysisNode, ...ekus: string[]) => (strings(t, 'effectiveekus') ?? []).some((e) => ekus.includes(e));

export async function enrollOnBehalfOf(ctx: AnalysisContext): Promise<void> {
  const pki = await loadPki(ctx);
  const v1 = pki.templates.filter((t) => num(t, 'schemaversion') === 1);
  const v2 = pki.templates.filter((t) => (num(t, 'schemaversion') ?? 0) >= 2);
  for (const domain of pki.domains) {
    for (const eca of pki.ecas) {
      if (!pki.chainsTo.get(eca.id)?.has(domain.id)) continue;
      for (const agent of pki.published.get(eca.id) ?? []) {
        const ekus = strings(agent, 'effectiveekus');
        if (!ekus) continue;
        if (!hasEku(agent, EKU_ANY_PURPOSE) && hasEku(agent, EKU_CERT_REQUEST_AGENT)) {
          for (const target of v2) {
            if (target.id === agent.id || (num(target, 'authorizedsignatures') ?? 0) < 1) continue;
            if (!(strings(target, 'applicationpolicies') ?? []).includes(EKU_CERT_REQUEST_AGENT)) continue;
            if (pki.linked.get(target.id)?.has(domain.id)) ctx.emit(agent.id, target.id, 'EnrollOnBehalfOf');
          }
        }
        if (ekus.length === 0 || hasEku(agent, EKU_CERT_REQUEST_AGENT, EKU_ANY_PURPOSE)) {
          for (const target of v1) if (pki.linked.get(target.id)?.has(domain.id)) ctx.emit(agent.id, target.id, 'EnrollOnBehalfOf');
        }
      }
    }
  }
  await ctx.flush();
}

/** The domains a CA's per-CA edges go to: those it chains properly to, when it has an enabled hosting computer. */
export const targetDomains = (pki: Pki, eca: AnalysisNode) =>
  ((pki.hosted.get(eca.id) ?? []).some((c) => bool(c, 'enabled') === true) ? [...(pki.chainsTo.get(eca.id) ?? [])] : []);

export async function goldenCert(ctx: AnalysisContext): Promise<void> {
  const pki = await loadPki(ctx);
  for (const eca of pki.ecas) {
    for (const domain of targetDomains(pki, eca)) for (const c of pki.hosted.get(eca.id) ?? []) ctx.emit(c.id, domain, 'GoldenCert');
  }
  await ctx.flush();
}

const validForEsc1 = (t: AnalysisNode) =>
  bool(t, 'requiresmanagerapproval') === false && bool(t, 'authenticationenabled') === true && bool(t, 'enrolleesuppliessubject') === true
  && num(t, 'schemaversion') !== undefined && num(t, 'authorizedsignatures') !== undefined
  && !(num(t, 'schemaversion')! > 1 && num(t, 'authorizedsignatures')! > 0);

export async function adcsEsc1(ctx: AnalysisContext): Promise<void> {
  const pki = await loadPki(ctx);
  for (const eca of pki.ecas) {
    const domains = targetDomains(pki, eca);
    const templates = (pki.published.get(eca.id) ?? []).filter(validForEsc1);
    if (!domains.length || !templates.length) continue;
    const caEnrollers = await ctx.firstDegree(eca.id, ['Enroll']);
    const principals = new Set<number>();
    for (const t of templates) {
      for (const p of await ctx.crossProduct([await ctx.firstDegree(t.id, ['Enroll', 'GenericAll', 'AllExtendedRights']), caEnrollers])) principals.add(p);
    }
    for (const p of principals) for (const d of domains) ctx.emit(p, d, 'ADCSESC1');
  }
  await ctx.flush();
}
