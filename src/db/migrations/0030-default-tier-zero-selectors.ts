/**
 * FROZEN: BloodHound's default Tier Zero selectors (reference/bloodhound-api-surface.md §9.4; seeded
 * upstream by v7.4.0, v7.6.0, v8.0.0 and v8.3.0). Each is a default selector (is_default 1,
 * auto_certify 2 = seeds only, expansion 1 = all, as every tier selects) with one Cypher seed
 * (type 2); all enabled, as on a fresh BloodHound install. `allow_disable` is 0 for the ones
 * BloodHound never lets a user turn off. Owned gets none. The queries state the rule of each
 * BloodHound selector in Scent's Cypher.
 */
import type { Kysely } from 'kysely';

const group = (suffix: string) => `MATCH (n:Group) WHERE n.objectid ENDS WITH '${suffix}' RETURN n`;
const role = (id: string) => `MATCH (n:AZRole) WHERE n.objectid STARTS WITH '${id}@' RETURN n`;
const named = (prefix: string) => `MATCH (n:Group) WHERE n.name STARTS WITH '${prefix}@' RETURN n`;
const every = (kind: string) => `MATCH (n:${kind}) RETURN n`;

/** [name, description, seed, allow_disable]. */
export const DEFAULT_TIER_ZERO_SELECTORS: ReadonlyArray<[string, string, string, boolean]> = [
  ['Administrators', 'The built-in Administrators group of each domain', group('S-1-5-32-544'), false],
  ['Backup Operators', 'The built-in Backup Operators group', group('S-1-5-32-551'), false],
  ['Domain Admins', 'Domain Admins (RID 512)', group('-512'), false],
  ['Enterprise Admins', 'Enterprise Admins (RID 519)', group('-519'), false],
  ['Schema Admins', 'Schema Admins (RID 518)', group('-518'), false],
  ['Administrator', 'The built-in Administrator account (RID 500)', `MATCH (n:User) WHERE n.objectid ENDS WITH '-500' RETURN n`, false],
  ['AdminSDHolder', 'The AdminSDHolder container of each domain',
    `MATCH (d:Domain) MATCH (n:Container) WHERE n.distinguishedname = 'CN=ADMINSDHOLDER,CN=SYSTEM,' + d.distinguishedname RETURN n`, false],
  ['Domain root object', 'Every domain object', every('Domain'), false],
  ['Global Administrator', 'Entra ID Global Administrator role', role('62E90394-69F5-4237-9190-012177145E10'), false],
  ['Partner Tier2 Support', 'Entra ID Partner Tier2 Support role', role('E00E864A-17C5-4A4B-9C06-F5B95A8D5BD8'), false],
  ['Privileged Authentication Administrator', 'Entra ID Privileged Authentication Administrator role', role('7BE44C8A-ADAF-4E2A-84D6-AB2649E08A13'), false],
  ['Privileged Role Administrator', 'Entra ID Privileged Role Administrator role', role('E8611AB8-C189-46E8-94E1-60213AB1F814'), false],
  ['Domain Controllers', 'Domain Controllers (RID 516)', group('-516'), false],
  ['Enterprise Key Admins', 'Enterprise Key Admins (RID 527)', group('-527'), false],
  ['Key Admins', 'Key Admins (RID 526)', group('-526'), false],
  ['Azure tenant object', 'Every Entra ID tenant object', every('AZTenant'), false],
  ['Enterprise Domain Controllers', 'Enterprise Domain Controllers (S-1-5-9)', group('-1-5-9'), false],
  ['Application Administrator', 'Entra ID Application Administrator role', role('9B895D92-2CD3-44C7-9D02-A6AC2D5EA5C3'), true],
  ['Knowledge Administrator', 'Entra ID Knowledge Administrator role', role('B5A8DCF3-09D5-43A9-A639-8E29EF291470'), true],
  ['Account Operators', 'The built-in Account Operators group', group('S-1-5-32-548'), true],
  ['Print Operators', 'The built-in Print Operators group', group('S-1-5-32-550'), true],
  ['Server Operators', 'The built-in Server Operators group', group('S-1-5-32-549'), true],
  ['KRBTGT objects', 'The KRBTGT account (RID 502)', `MATCH (n:User) WHERE n.objectid ENDS WITH '-502' RETURN n`, true],
  ['Read-Only Domain Controllers', 'Computers in Read-Only Domain Controllers (RID 521)',
    `MATCH (n:Computer)-[:MemberOf]->(g:Group) WHERE g.objectid ENDS WITH '-521' RETURN n`, true],
  ['Read-Only DCs', 'Computers collected as read-only domain controllers', `MATCH (n:Computer) WHERE n.isreadonlydc = true RETURN n`, true],
  ['Enterprise CA Computers', 'Computers hosting an enterprise CA', `MATCH (n:Computer)-[:HostsCAService]->(:EnterpriseCA) RETURN n`, true],
  ['Exchange Trusted Subsystem', 'The Exchange Trusted Subsystem group', named('EXCHANGE TRUSTED SUBSYSTEM'), true],
  ['Exchange Windows Permissions', 'The Exchange Windows Permissions group', named('EXCHANGE WINDOWS PERMISSIONS'), true],
  ['DNS Admins', 'The DnsAdmins group', named('DNSADMINS'), true],
  ['Intune Administrator', 'Entra ID Intune Administrator role', role('3A2C62DB-5318-420D-8D74-23AFFEE5D9D5'), true],
  ['Security Administrator', 'Entra ID Security Administrator role', role('194AE4CB-B126-40B2-BD5B-6091B380977D'), true],
  ['Cert Publishers', 'Cert Publishers (RID 517)', group('-517'), true],
  ['NTAuth store', 'Every NTAuth store object', every('NTAuthStore'), true],
  ['Root CA object', 'Every root CA object', every('RootCA'), true],
  ['Cryptographic Operators', 'The built-in Cryptographic Operators group', group('S-1-5-32-569'), true],
  ['Distributed COM Users', 'The built-in Distributed COM Users group', group('S-1-5-32-562'), true],
  ['AIA CA (AD object)', 'Every AIA CA object', every('AIACA'), true],
  ['Enterprise CA (AD object)', 'Every enterprise CA object', every('EnterpriseCA'), true],
  ['Performance Log Users', 'The built-in Performance Log Users group', group('S-1-5-32-559'), true],
  ['Certificate template', 'Every certificate template object', every('CertTemplate'), true],
  ['AZUREADSSOACC object', 'The AZUREADSSOACC$ computer account', `MATCH (n:Computer) WHERE n.samaccountname = 'AZUREADSSOACC$' RETURN n`, true],
  ['Incoming Forest Trust Builders', 'The built-in Incoming Forest Trust Builders group', group('-557'), true],
];

export async function up(db: Kysely<any>): Promise<void> {
  const tier = await db.selectFrom('asset_group_tags').select('id').where('type', '=', 1).where('position', '=', 1).executeTakeFirst();
  if (!tier) return;
  const now = Date.now() * 1000;
  for (const [name, description, seed, allowDisable] of DEFAULT_TIER_ZERO_SELECTORS) {
    const taken = await db.selectFrom('asset_group_tag_selectors').select('id')
      .where('asset_group_tag_id', '=', tier.id).where('name', '=', name).executeTakeFirst();
    if (taken) continue; // a user's selector of that name stays as it is
    const row = await db.insertInto('asset_group_tag_selectors').values({
      asset_group_tag_id: tier.id, name, description, expansion: 1, created_at: now, created_by: 'BloodHound', updated_at: now,
      updated_by: 'BloodHound', auto_certify: 2, is_default: 1, allow_disable: allowDisable ? 1 : 0, disabled_at: null, disabled_by: null,
    }).returning('id').executeTakeFirstOrThrow();
    await db.insertInto('asset_group_tag_selector_seeds').values({ selector_id: row.id, type: 2, value: seed }).execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  const names = DEFAULT_TIER_ZERO_SELECTORS.map(([name]) => name);
  await db.deleteFrom('asset_group_tag_selectors').where('is_default', '=', 1).where('name', 'in', names).execute();
}
