/**
 * Ingest of the real SharpHound v6 fixture set (../shared/fixtures/sharphound-v6) proves FACTS.md:
 * expectations are computed from the JSON files themselves, independently of the converters.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { createTestDb, DIALECT, type TestDb } from '../../test/harness.ts';
import { FIXTURES } from '../../test/fixture-path.ts';
import { postProcess } from '../analysis/post-processing.ts';
import { ingestFiles } from './ingest.service.ts';

const FILES = readdirSync(FIXTURES).filter((f) => f.endsWith('.json') && !f.startsWith('expected')).sort();
type Obj = Record<string, any>;
const load = (f: string): Obj => JSON.parse(readFileSync(FIXTURES + f, 'utf8').replace(/^\uFEFF/, ''));
const DATA = Object.fromEntries(FILES.map((f) => [f.replace('.json', ''), load(f).data as Obj[]]));
const KIND: Record<string, string> = {
  users: 'User', groups: 'Group', computers: 'Computer', domains: 'Domain', ous: 'OU', containers: 'Container', gpos: 'GPO',
  aiacas: 'AIACA', rootcas: 'RootCA', enterprisecas: 'EnterpriseCA', ntauthstores: 'NTAuthStore', certtemplates: 'CertTemplate',
  issuancepolicies: 'IssuancePolicy',
};
const DOMAIN = 'S-1-5-21-909015691-3030120388-2582151266';

let db: TestDb;
const edgeSet = async (kind: string) => {
  const rows = await sql<{ s: string; e: string }>`select s.objectid as s, t.objectid as e from edges
    join nodes s on s.id = edges.start_id join nodes t on t.id = edges.end_id where edges.kind = ${kind}`.execute(db.kysely);
  return new Set(rows.rows.map((r) => `${r.s}>${r.e}`));
};
const count = async (q: ReturnType<typeof sql<{ n: number }>>) => Number((await q.execute(db.kysely)).rows[0].n);

before(async () => {
  db = await createTestDb();
  const outcomes = await ingestFiles(db, FILES.map((f) => ({ path: FIXTURES + f })));
  assert.deepEqual(outcomes.filter((o) => o.error), [], 'every fixture file ingests');
  assert.equal(outcomes.length, 13);
});
after(() => db.close());

test(`fixtures on ${DIALECT}: one node per distinct ObjectIdentifier, per kind (FACTS §1, §5, §7)`, async () => {
  const rows = await sql<{ kind: string; n: number }>`select kind, count(*) as n from nodes where is_placeholder = 0 group by kind`.execute(db.kysely);
  const got = Object.fromEntries(rows.rows.map((r) => [r.kind, Number(r.n)]));
  const want = Object.fromEntries(Object.entries(DATA).map(([t, d]) => [KIND[t], new Set(d.map((o) => o.ObjectIdentifier)).size]));
  assert.deepEqual(got, want);
  assert.equal(want.Group, 57, '86 group entries, 57 distinct');
  assert.equal(want.User, 14);
  assert.equal(want.Container, 207);
  assert.equal(want.CertTemplate, 34);
  assert.equal(want.Domain, 1);
});

test(`fixtures on ${DIALECT}: the duplicate domain entries merge into one complete ESC1.LOCAL node`, async () => {
  const d = await db.kysely.selectFrom('nodes').selectAll().where('objectid', '=', DOMAIN).executeTakeFirstOrThrow();
  assert.equal(d.name, 'ESC1.LOCAL');
  assert.equal(d.environment_id, DOMAIN);
  const props = JSON.parse(d.properties);
  assert.equal(props.functionallevel, '2016');
  assert.equal(props.collected, true);
  assert.deepEqual(JSON.parse(d.kinds), ['Domain', 'Base']);
  const policies = await db.kysely.selectFrom('nodes').select('environment_id').where('kind', '=', 'IssuancePolicy').execute();
  assert.deepEqual([...new Set(policies.map((p) => p.environment_id))], ['S-1-5-21-318463681-1533741871-3192839656']);
});

test(`fixtures on ${DIALECT}: one edge per distinct ACE as BloodHound ingests it: an object's ACEs on itself dropped, ownership raw (FACTS §7)`, async () => {
  // Before BloodHound parity every ACE was an edge, Owns/WriteOwner included; analysis now derives those.
  const aces: string[] = [];
  let self = 0;
  for (const objects of Object.values(DATA)) {
    for (const o of objects) {
      const own = (o.CARegistryData?.CASecurity?.Data ?? []).filter((a: Obj) => a.RightName !== 'Owns');
      for (const a of [...(o.Aces ?? []), ...own]) {
        if (a.PrincipalSID === o.ObjectIdentifier) self++;
        else aces.push(`${({ Owns: 'OwnsRaw', WriteOwner: 'WriteOwnerRaw' } as Obj)[a.RightName] ?? a.RightName}|${a.PrincipalSID}>${o.ObjectIdentifier}`);
      }
    }
  }
  const inAcesArrays = Object.values(DATA).flat().reduce((n, o) => n + (o.Aces?.length ?? 0), 0);
  assert.equal(inAcesArrays, 2156, 'FACTS §7: ACEs in Aces arrays');
  assert.equal(self, 10, 'ACEs of an object on itself');
  const distinct = new Set(aces);
  const aclEdges = await count(sql<{ n: number }>`select count(*) as n from edges where properties like '%"isacl":true%'`);
  assert.equal(aclEdges, distinct.size, 'ACEs that repeat (same principal, right, object) are one edge');
  for (const right of new Set(aces.map((a) => a.split('|')[0]))) {
    const want = new Set(aces.filter((a) => a.startsWith(`${right}|`)).map((a) => a.split('|')[1]));
    assert.deepEqual([...(await edgeSet(right))].sort(), [...want].sort(), right);
  }
  assert.equal((await edgeSet('Owns')).size + (await edgeSet('WriteOwner')).size, 0, 'Owns / WriteOwner come from the analysis');
});

test(`fixtures on ${DIALECT}: MemberOf from Members (duplicate group entries merged) and primary groups`, async () => {
  const want = new Set<string>();
  for (const g of DATA.groups) for (const m of g.Members) want.add(`${m.ObjectIdentifier}>${g.ObjectIdentifier}`);
  for (const o of [...DATA.users, ...DATA.computers]) if (o.PrimaryGroupSID) want.add(`${o.ObjectIdentifier}>${o.PrimaryGroupSID}`);
  const got = await edgeSet('MemberOf');
  assert.deepEqual([...got].sort(), [...want].sort());
  assert.ok(got.has(`S-1-5-21-909015691-3030120388-2582151266-1000>ESC1.LOCAL-S-1-5-9`), 'member listed only by the second S-1-5-9 entry');
  assert.ok(got.has(`S-1-5-21-909015691-3030120388-2582151266-500>S-1-5-21-909015691-3030120388-2582151266-512`));
});

test(`fixtures on ${DIALECT}: HasSession from PrivilegedSessions and RegistrySessions (FACTS §7)`, async () => {
  assert.deepEqual([...(await edgeSet('HasSession'))], [`${DOMAIN}-1000>${DOMAIN}-500`]);
});

test(`fixtures on ${DIALECT}: Contains, GPLink and the AD CS links`, async () => {
  const contains = await edgeSet('Contains');
  for (const objects of Object.values(DATA)) {
    for (const o of objects) if (o.ContainedBy) assert.ok(contains.has(`${o.ContainedBy.ObjectIdentifier}>${o.ObjectIdentifier}`));
  }
  const links = [...DATA.domains, ...DATA.ous].flatMap((o) => o.Links.map((l: Obj) => `${l.GUID}>${o.ObjectIdentifier}`));
  assert.deepEqual([...(await edgeSet('GPLink'))].sort(), [...new Set(links)].sort());
  assert.ok(links.includes(`C8C7B7E0-C0F7-4FAC-8CCB-4B7C1CD03996>${DOMAIN}`));
  const eca = '14CEE53E-4D95-4DDD-A244-BF15C73DC06A';
  const published = await edgeSet('PublishedTo');
  assert.deepEqual([...published].sort(), DATA.enterprisecas[0].EnabledCertTemplates.map((t: Obj) => `${t.ObjectIdentifier}>${eca}`).sort());
  assert.deepEqual([...(await edgeSet('HostsCAService'))], [`${DOMAIN}-1000>${eca}`]);
  assert.deepEqual([...(await edgeSet('RootCAFor'))], [`4B5183E1-DB57-4A57-8159-3E9649F3B01C>${DOMAIN}`]);
  assert.deepEqual([...(await edgeSet('NTAuthStoreFor'))], [`722A8BB3-AEF5-49C7-9C8C-C1C97A219007>${DOMAIN}`]);
  // Links by certificate thumbprint are BloodHound post-processing: drawn after the ingest, not by it.
  for (const kind of ['EnterpriseCAFor', 'TrustedForNTAuth', 'IssuedSignedBy']) assert.equal((await edgeSet(kind)).size, 0, kind);
  await postProcess(db);
  assert.deepEqual([...(await edgeSet('EnterpriseCAFor'))].sort(), [`${eca}>4B5183E1-DB57-4A57-8159-3E9649F3B01C`, `${eca}>6345151F-D854-4D83-B7D0-D94E10CFBAF2`]);
  assert.deepEqual([...(await edgeSet('TrustedForNTAuth'))], [`${eca}>722A8BB3-AEF5-49C7-9C8C-C1C97A219007`]);
  assert.equal((await edgeSet('IssuedSignedBy')).size, 0, 'every certchain has one certificate');
});

test(`fixtures on ${DIALECT}: every template's direct controllers of expected-controllers.json are exactly its control edges (ownership raw until the analysis)`, async () => {
  const expected = JSON.parse(readFileSync(FIXTURES + 'expected-controllers.json', 'utf8')) as Record<string, Obj[]>;
  assert.equal(Object.keys(expected).length, 34);
  const raw: Record<string, string> = { Owns: 'OwnsRaw', WriteOwner: 'WriteOwnerRaw' };
  for (const r of Object.values(expected).flat()) r.right = raw[r.right] ?? r.right;
  const rights = new Set(Object.values(expected).flat().map((r) => r.right));
  for (const [template, records] of Object.entries(expected)) {
    const rows = await sql<{ objectid: string; kind: string; right: string }>`select s.objectid, s.kind, e.kind as "right"
      from edges e join nodes s on s.id = e.start_id join nodes t on t.id = e.end_id
      where t.objectid = ${template} and e.kind in (${sql.join([...rights])})`.execute(db.kysely);
    const got = rows.rows.map((r) => `${r.objectid}|${r.kind}|${r.right}`).sort();
    const want = records.filter((r) => r.via === 'direct').map((r) => `${r.objectid}|${r.kind}|${r.right}`).sort();
    assert.deepEqual(got, want, template);
  }
});

test(`fixtures on ${DIALECT}: ingesting the same files again changes no counts`, async () => {
  const before = await count(sql<{ n: number }>`select (select count(*) from nodes) * 1000000 + (select count(*) from edges) as n`);
  const outcomes = await ingestFiles(db, ['groups.json', 'users.json', 'domains.json'].map((f) => ({ path: FIXTURES + f })));
  assert.deepEqual(outcomes.map((o) => o.error), [undefined, undefined, undefined]);
  assert.equal(await count(sql<{ n: number }>`select (select count(*) from nodes) * 1000000 + (select count(*) from edges) as n`), before);
});
