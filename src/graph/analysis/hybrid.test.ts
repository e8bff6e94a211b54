/**
 * SyncedToEntraUser / SyncedToADUser on a hand-built hybrid graph: Entra users of a tenant synchronised
 * from AD, linked both ways with the AD object of their `onpremid` (created when missing).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECT } from '../../test/harness.ts';
import { analysed, D, domain, user, type E, type N } from './rules.test-helpers.ts';

const TENANT = 'TEN00000-0000-0000-0000-000000000001';
const az = (n: number, props: Record<string, unknown>): N => [`AZU00000-0000-0000-0000-00000000000${n}`, ['AZUser', 'AZBase'], { name: `A${n}@CORP.ONMICROSOFT.COM`, ...props }];
const A = (n: number) => `AZU00000-0000-0000-0000-00000000000${n}`;

test(`SyncedToEntraUser / SyncedToADUser on ${DIALECT}: synchronised Entra users of a tenant ↔ their AD user, created when missing`, async () => {
  const nodes: N[] = [domain(), user('1100'), [TENANT, ['AZTenant', 'AZBase'], { name: 'CORP' }],
    az(1, { onpremsyncenabled: true, onpremid: `${D}-1100` }), // AD user exists
    az(2, { onpremsyncenabled: true, onpremid: `${D}-1199` }), // AD user missing: created
    az(3, { onpremsyncenabled: false, onpremid: `${D}-1100` }), // not synchronised
    az(4, { onpremsyncenabled: true }), // no on-premises id
    az(5, { onpremsyncenabled: true, onpremid: `${D}-1100` })]; // not in the tenant
  const edges: E[] = [1, 2, 3, 4].map((n): E => [TENANT, 'AZContains', A(n)]);
  const g = await analysed(nodes, edges);
  try {
    assert.deepEqual(await g.edges('SyncedToEntraUser'), [`${D}-1100 -> ${A(1)}`, `${D}-1199 -> ${A(2)}`]);
    assert.deepEqual(await g.edges('SyncedToADUser'), [`${A(1)} -> ${D}-1100`, `${A(2)} -> ${D}-1199`]);
    const created = await g.db.kysely.selectFrom('nodes').select(['kinds', 'properties']).where('objectid', '=', `${D}-1199`).executeTakeFirstOrThrow();
    assert.deepEqual([JSON.parse(created.kinds), JSON.parse(created.properties)], [['User', 'Base'], {}]);
  } finally {
    await g.db.close();
  }
});
