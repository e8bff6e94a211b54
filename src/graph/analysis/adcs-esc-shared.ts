/**
 * What the ESC rules of adcs-esc.ts and adcs-esc-binding.ts share (BloodHound esc_shared.go,
 * adcscache.go, queries.go): the enrollers of templates and CAs read once per run, the per-CA loop over
 * the domains a CA's edges go to, the "user victim" filter, and the victim / attacker sets of ESC9 / ESC10.
 * Property reads follow BloodHound's: a flag that is missing (or not a boolean) makes a template invalid.
 */
import { parseKinds } from '../merge.ts';
import { EKU_ANY_PURPOSE, loadPki, targetDomains, type Pki } from './adcs.ts';
import { bool, hasKind, num, strings, type AnalysisContext, type AnalysisNode } from './context.ts';

const CHUNK = 500;
const EKU_CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';

const memos = new WeakMap<AnalysisContext, Map<string, Promise<unknown>>>();

/** Computes `read` once per analysis run and key. */
export function once<T>(ctx: AnalysisContext, key: string, read: () => Promise<T>): Promise<T> {
  let run = memos.get(ctx);
  if (!run) memos.set(ctx, (run = new Map()));
  let value = run.get(key) as Promise<T> | undefined;
  if (!value) run.set(key, (value = read()));
  return value;
}

/** Principals that may enroll in a template: Enroll / GenericAll / AllExtendedRights (BloodHound's template enrollers). */
export const templateEnrollers = (ctx: AnalysisContext, template: AnalysisNode) =>
  once(ctx, `enrollers:${template.id}`, () => ctx.firstDegree(template.id, ['Enroll', 'GenericAll', 'AllExtendedRights']));

/** Principals that may enroll through a CA: Enroll. */
export const caEnrollers = (ctx: AnalysisContext, eca: AnalysisNode) => once(ctx, `ca-enrollers:${eca.id}`, () => ctx.firstDegree(eca.id, ['Enroll']));

/** Start nodes of `kinds` edges into `end`, whatever their kinds (BloodHound's FetchStartNodes). */
export async function startNodes(ctx: AnalysisContext, end: number, kinds: string[]): Promise<AnalysisNode[]> {
  const edges = await ctx.edgesInto([end], kinds);
  return [...(await ctx.nodes(new Set(edges.map((e) => e.start)))).values()].sort((a, b) => a.id - b.id);
}

/** The kinds of many nodes, without their properties (victim sets may hold a whole domain). */
export async function kindsById(ctx: AnalysisContext, ids: Iterable<number>): Promise<Map<number, string[]>> {
  const list = [...ids];
  const out = new Map<number, string[]>();
  for (let i = 0; i < list.length; i += CHUNK) {
    const rows = await ctx.k.selectFrom('nodes').select(['id', 'kinds']).where('id', 'in', list.slice(i, i + CHUNK)).execute();
    for (const r of rows) out.set(Number(r.id), parseKinds(r.kinds));
  }
  return out;
}

/**
 * Runs `derive` for every enterprise CA that has published templates and whose edges go to at least one
 * domain (it chains properly to the domain and has an enabled hosting computer), then writes what it emitted.
 */
export async function perCa(ctx: AnalysisContext, derive: (pki: Pki, eca: AnalysisNode, domains: number[], published: AnalysisNode[]) => Promise<void>): Promise<void> {
  const pki = await loadPki(ctx);
  for (const eca of pki.ecas) {
    const domains = targetDomains(pki, eca);
    const published = pki.published.get(eca.id) ?? [];
    if (domains.length && published.length) await derive(pki, eca, domains, published);
  }
  await ctx.flush();
}

export function emitAll(ctx: AnalysisContext, principals: Iterable<number>, targets: number[], kind: string): void {
  for (const p of principals) for (const t of targets) ctx.emit(p, t, kind);
}

/** Schema 1, or no authorized signature required (both properties present). */
export const noSignatureRequired = (t: AnalysisNode): boolean => {
  const schema = num(t, 'schemaversion');
  const signatures = num(t, 'authorizedsignatures');
  return schema !== undefined && signatures !== undefined && !(schema > 1 && signatures > 0);
};

/** `schannelauthenticationenabled` when present, else from the effective EKUs (client auth, any purpose, or none). */
export const schannelAuthentication = (t: AnalysisNode): boolean => {
  if ('schannelauthenticationenabled' in t.properties) return bool(t, 'schannelauthenticationenabled') === true;
  const ekus = strings(t, 'effectiveekus');
  return ekus !== undefined && (ekus.length === 0 || ekus.includes(EKU_CLIENT_AUTH) || ekus.includes(EKU_ANY_PURPOSE));
};

/** Users stay only when the template lets a user be the subject: neither DNS requirement (both present and false). */
export async function withoutUsersUnlessValid(ctx: AnalysisContext, principals: Set<number>, template: AnalysisNode): Promise<Set<number>> {
  if (bool(template, 'subjectaltrequiredns') === false && bool(template, 'subjectaltrequiredomaindns') === false) return principals;
  const kinds = await kindsById(ctx, principals);
  return new Set([...principals].filter((id) => !kinds.get(id)?.includes('User')));
}

/** Authenticated Users / Everyone, once per run. */
const specialGroups = (ctx: AnalysisContext) => once(ctx, 'special-groups', () => ctx.specialGroups());

/** Whether Authenticated Users or Everyone is among the principals, or a direct member of one of their groups. */
export async function hasSpecialEnroller(ctx: AnalysisContext, principals: AnalysisNode[]): Promise<boolean> {
  const special = await specialGroups(ctx);
  if (principals.some((p) => special.has(p.id))) return true;
  const groups = principals.filter((p) => hasKind(p, 'Group')).map((p) => p.id);
  if (!groups.length || !special.size) return false;
  const edges = await ctx.edgesInto(groups, ['MemberOf']);
  return edges.some((e) => special.has(e.start));
}

/** The principals, groups replaced by their transitive members that are not groups with members themselves. */
async function expandWithoutGroups(ctx: AnalysisContext, principals: AnalysisNode[]): Promise<Set<number>> {
  const out = new Set<number>();
  for (const p of principals) {
    if (!hasKind(p, 'Group')) {
      out.add(p.id);
      continue;
    }
    const members = await ctx.members(p.id);
    const kinds = await kindsById(ctx, members);
    for (const m of members) {
      const k = kinds.get(m) ?? [];
      if (!k.includes('Group') && !k.includes('ADLocalGroup')) out.add(m);
      else if ((await ctx.members(m)).size === 0) out.add(m);
    }
  }
  return out;
}

/**
 * ESC9 / ESC10 victims (BloodHound getVictimBitmap): the principals enrolling through both the template and
 * the CA; when Authenticated Users / Everyone enrolls on one side, every principal of the other side.
 */
export async function victims(ctx: AnalysisContext, template: AnalysisNode, eca: AnalysisNode): Promise<Set<number>> {
  const onTemplate = await templateEnrollers(ctx, template);
  const onCa = await caEnrollers(ctx, eca);
  const templateSet = await expandWithoutGroups(ctx, onTemplate);
  const caSet = await expandWithoutGroups(ctx, onCa);
  const templateSpecial = await once(ctx, `special:${template.id}`, () => hasSpecialEnroller(ctx, onTemplate));
  const caSpecial = await once(ctx, `special:${eca.id}`, () => hasSpecialEnroller(ctx, onCa));
  if (!templateSpecial && !caSpecial) return new Set([...templateSet].filter((id) => caSet.has(id)));
  return new Set([...(templateSpecial ? caSet : []), ...(caSpecial ? templateSet : [])]);
}

/**
 * ESC9 / ESC10 attackers: groups, users and computers holding GenericAll / GenericWrite / Owns / WriteOwner /
 * WriteDacl directly on a victim (scenario B: on a computer victim).
 */
export async function attackers(ctx: AnalysisContext, victimIds: Set<number>, computersOnly: boolean): Promise<Set<number>> {
  let ends = victimIds;
  if (computersOnly) {
    const kinds = await kindsById(ctx, victimIds);
    ends = new Set([...victimIds].filter((id) => kinds.get(id)?.includes('Computer')));
  }
  const edges = await ctx.edgesInto(ends, ['GenericAll', 'GenericWrite', 'Owns', 'WriteOwner', 'WriteDacl']);
  const kinds = await kindsById(ctx, new Set(edges.map((e) => e.start)));
  return new Set(edges.map((e) => e.start).filter((id) => (kinds.get(id) ?? []).some((k) => k === 'Group' || k === 'User' || k === 'Computer')));
}
