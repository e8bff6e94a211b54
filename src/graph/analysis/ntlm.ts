/**
 * NTLM relay rules (BloodHound packages/go/analysis/ad/ntlm.go `PostNTLM`), run when the feature flag
 * `ntlm_post_processing` is enabled. Every edge starts at the Authenticated Users group (`…-S-1-5-11`) of
 * the target computer's domain (`domainsid`) and ends at the computer that can be coerced.
 * An "unprotected" computer has `restrictoutboundntlm` = false, is in a domain with an Authenticated Users
 * group and a `domainsid`, and is not in Protected Users (`-525`, transitively) unless the domain's
 * `functionallevel` is 2012 or older.
 *   CoerceAndRelayNTLMToSMB   a computer with `smbsigning` = false, when an unprotected computer other than
 *                             itself is AdminTo it (directly, or as a member of a group that is)
 *   CoerceAndRelayNTLMToLDAP  an unprotected computer with `webclientrunning`, when its domain has a DC
 *                             (`isdc`) other than itself with `ldapavailable` and `ldapsigning` = false
 *   CoerceAndRelayNTLMToLDAPS the same with a DC with `ldapsavailable` and `ldapsepa` = false
 *   CoerceAndRelayNTLMToADCS  the unprotected computers among the victims (adcs-esc-shared.ts `victims`) of
 *                             templates published to a CA with `hasvulnerableendpoint` (web enrollment
 *                             relayable) that chains properly to the domain and has an enabled host; templates
 *                             without manager approval, with authentication, schema 1 or no authorized signature
 * Computers are read only when their properties name the NTLM key needed (an import without NTLM data
 * costs one scan of the computers' property text, for `restrictoutboundntlm`).
 */
import { sql } from 'kysely';
import { loadPki, targetDomains } from './adcs.ts';
import { bool, hasKind, num, str, type AnalysisContext, type AnalysisNode } from './context.ts';
import { once, templateEnrollers, victims } from './adcs-esc-shared.ts';

const OLD_FUNCTIONAL_LEVELS = ['2000 Mixed/Native', '2003 Interim', '2003', '2008', '2008 R2', '2012'];

export const ntlmEnabled = (ctx: AnalysisContext) => once(ctx, 'ntlm-enabled', async () => {
  const flag = await ctx.k.selectFrom('feature_flags').select('enabled').where('key', '=', 'ntlm_post_processing').executeTakeFirst();
  return Boolean(flag?.enabled);
});

/** Nodes whose property text names one of `keys` (a coarse text filter; the values are checked on the parsed properties). */
async function nodesNaming(ctx: AnalysisContext, kind: string | null, keys: string[]): Promise<AnalysisNode[]> {
  const fn = ctx.dialect === 'postgres' ? 'strpos' : 'instr';
  const rows = await ctx.k.selectFrom('nodes').select('id')
    .where((eb) => eb.and([...(kind ? [eb('kind', '=', kind)] : []),
      eb.or(keys.map((k) => eb(sql`${sql.raw(fn)}(properties, ${`"${k}"`})`, '>', 0)))]))
    .execute();
  return [...(await ctx.nodes(rows.map((r) => Number(r.id)))).values()].sort((a, b) => a.id - b.id);
}

interface Ntlm {
  /** Domain SID → its Authenticated Users group. */
  authUsers: Map<string, number>;
  /** Domain SID → its DCs relayable to LDAP / LDAPS, and whether its functional level is 2012 or older. */
  domains: Map<string, { ldap: number[]; ldaps: number[]; oldLevel: boolean }>;
  /** The unprotected computers (nodes, and their ids). */
  unprotectedNodes: AnalysisNode[];
  unprotected: Set<number>;
}

const NONE: Ntlm = { authUsers: new Map(), domains: new Map(), unprotectedNodes: [], unprotected: new Set() };

/**
 * What the relay rules share. Every relay needs an unprotected computer, so the computers that say
 * `restrictoutboundntlm` are read first, and nothing else is read when none says false.
 */
const readNtlm = (ctx: AnalysisContext) => once(ctx, 'ntlm', async (): Promise<Ntlm> => {
  const open = (await nodesNaming(ctx, 'Computer', ['restrictoutboundntlm'])).filter((c) => bool(c, 'restrictoutboundntlm') === false);
  if (!open.length) return NONE;
  const authUsers = new Map<string, number>();
  const protectedUsers = new Map<string, Set<number>>();
  const wellKnown = await ctx.k.selectFrom('nodes').select('id')
    .where((eb) => eb.or([eb('objectid', 'like', '%-S-1-5-11'), eb('objectid', 'like', '%-525')])).execute();
  for (const g of (await ctx.nodes(wellKnown.map((r) => Number(r.id)))).values()) {
    const sid = str(g, 'domainsid');
    if (!hasKind(g, 'Group') || sid === undefined) continue;
    if (g.objectid.endsWith('-S-1-5-11')) authUsers.set(sid, g.id);
    else protectedUsers.set(sid, await ctx.members(g.id));
  }
  const dcs = open.some((c) => bool(c, 'webclientrunning') === true) ? await nodesNaming(ctx, null, ['ldapavailable', 'ldapsavailable']) : [];
  const domains: Ntlm['domains'] = new Map();
  for (const d of await ctx.nodesOfKind('Domain')) {
    const sid = str(d, 'domainsid');
    if (sid === undefined) continue;
    const own = dcs.filter((c) => str(c, 'domainsid') === sid && bool(c, 'isdc') === true);
    domains.set(sid, {
      ldap: own.filter((c) => bool(c, 'ldapsigning') === false && bool(c, 'ldapavailable') === true).map((c) => c.id),
      ldaps: own.filter((c) => bool(c, 'ldapsavailable') === true && bool(c, 'ldapsepa') === false).map((c) => c.id),
      oldLevel: OLD_FUNCTIONAL_LEVELS.includes(str(d, 'functionallevel') ?? ''),
    });
  }
  const unprotectedNodes = open.filter((c) => {
    const sid = str(c, 'domainsid');
    if (sid === undefined || !authUsers.has(sid) || !domains.has(sid)) return false;
    return !(protectedUsers.get(sid)?.has(c.id) && !domains.get(sid)!.oldLevel);
  });
  return { authUsers, domains, unprotectedNodes, unprotected: new Set(unprotectedNodes.map((c) => c.id)) };
});

export async function relayToSmb(ctx: AnalysisContext): Promise<void> {
  if (!(await ntlmEnabled(ctx))) return;
  const ntlm = await readNtlm(ctx);
  if (!ntlm.unprotected.size) return;
  for (const c of await nodesNaming(ctx, 'Computer', ['smbsigning'])) {
    const from = ntlm.authUsers.get(str(c, 'domainsid') ?? '');
    if (from === undefined || bool(c, 'smbsigning') !== false) continue;
    const admins = new Set<number>();
    for (const p of await ctx.firstDegree(c.id, ['AdminTo'])) {
      if (hasKind(p, 'Group')) for (const m of await ctx.members(p.id)) admins.add(m);
      else admins.add(p.id);
    }
    if ([...admins].some((a) => a !== c.id && ntlm.unprotected.has(a))) ctx.emit(from, c.id, 'CoerceAndRelayNTLMToSMB');
  }
  await ctx.flush();
}

export async function relayToLdap(ctx: AnalysisContext): Promise<void> {
  if (!(await ntlmEnabled(ctx))) return;
  const ntlm = await readNtlm(ctx);
  const relayable = (dcs: number[], self: number) => dcs.length > 1 || (dcs.length === 1 && dcs[0] !== self);
  for (const c of ntlm.unprotectedNodes) {
    const sid = str(c, 'domainsid') ?? '';
    const from = ntlm.authUsers.get(sid);
    const domain = ntlm.domains.get(sid);
    if (from === undefined || !domain || bool(c, 'webclientrunning') !== true) continue;
    if (relayable(domain.ldap, c.id)) ctx.emit(from, c.id, 'CoerceAndRelayNTLMToLDAP');
    if (relayable(domain.ldaps, c.id)) ctx.emit(from, c.id, 'CoerceAndRelayNTLMToLDAPS');
  }
  await ctx.flush();
}

const relayableTemplate = (t: AnalysisNode): boolean => {
  if (bool(t, 'requiresmanagerapproval') !== false || bool(t, 'authenticationenabled') !== true) return false;
  const schema = num(t, 'schemaversion');
  if (schema === undefined) return false;
  return schema <= 1 || num(t, 'authorizedsignatures') === 0;
};

export async function relayToAdcs(ctx: AnalysisContext): Promise<void> {
  if (!(await ntlmEnabled(ctx))) return;
  const pki = await loadPki(ctx);
  const vulnerable = pki.ecas.filter((e) => bool(e, 'hasvulnerableendpoint') === true && (pki.published.get(e.id) ?? []).length);
  if (!vulnerable.length) return;
  const ntlm = await readNtlm(ctx);
  if (!ntlm.unprotected.size) return;
  const domainById = new Map(pki.domains.map((d) => [d.id, d]));
  for (const eca of vulnerable) {
    const froms = targetDomains(pki, eca).map((d) => ntlm.authUsers.get(str(domainById.get(d)!, 'domainsid') ?? '')).filter((g) => g !== undefined);
    if (!froms.length) continue;
    const computers = new Set<number>();
    for (const t of (pki.published.get(eca.id) ?? []).filter(relayableTemplate)) {
      if (!(await templateEnrollers(ctx, t)).length) continue;
      for (const v of await victims(ctx, t, eca)) if (ntlm.unprotected.has(v)) computers.add(v);
    }
    for (const from of froms) for (const c of computers) ctx.emit(from, c, 'CoerceAndRelayNTLMToADCS');
  }
  await ctx.flush();
}
