/**
 * Planner shapes (src/cypher/match.ts, plan.ts) that change where matching starts or what a scan
 * reads, never the answer: start candidates from relationship kinds (the nodes having an edge of a
 * neighbouring relationship's kinds) and presence tests for null-rejecting predicates. Each must give
 * the rows of the plan without it (as a multiset: starting elsewhere may list them in another order,
 * which Cypher leaves open without ORDER BY; a final LIMIT is compared without it, then by count):
 * checked on every Active Directory query of the Query Library plus constructed ones, on the
 * SharpHound v6 fixture after ingest and analysis.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { test } from 'node:test';
import { executeQuery, type ExecuteOptions } from '../../cypher/execute.ts';
import { GraphSource } from '../../cypher/graph-source.ts';
import { AD_QUERIES } from '../../cypher/library.test-helpers.ts';
import { prepareCypher } from '../../cypher/prepare.ts';
import { CypherError } from '../../cypher/errors.ts';
import { FIXTURES } from '../../graph/ingest/fixture-path.ts';
import { ingestFiles } from '../../graph/ingest/ingest.service.ts';
import { createTestApp } from '../../test/harness.ts';
import { analyzeGraph } from '../data-quality/analysis.service.ts';

const CONSTRUCTED = [
  'MATCH p = (n)-[:AdminTo]->(c:Computer) RETURN p',
  'MATCH (n)<-[:MemberOf]-(m) RETURN n.name AS name, count(m) AS c ORDER BY name',
  'MATCH (g:Group)<-[:MemberOf*1..]-(u:User) RETURN g.name, u.name',
  'MATCH (a)-[:HasSession|AdminTo]-(b) RETURN a, b',
  'MATCH (a)-[:NoSuchKind]->(b) RETURN a',
  'MATCH (a)-[:MemberOf*0..1]->(b:Group) RETURN a, b',
  'MATCH (u:User) WHERE u.email <> "" RETURN u.name',
  'MATCH (u:User) WHERE toUpper(u.name) <> "X" RETURN u.name',
  'MATCH (n) WHERE n.name =~ "(?i).*ADMIN.*" RETURN n',
  'MATCH (n:User) WHERE ANY(s IN n.serviceprincipalnames WHERE s CONTAINS "/") RETURN n',
  'MATCH (n:Base) WHERE size(n.description) > 3 OR n.hasspn = true RETURN n',
];

test('start candidates from relationship kinds and presence tests: the same rows as without them', async () => {
  const t = await createTestApp();
  try {
    const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.json') && !f.startsWith('expected')).sort();
    const outcomes = await ingestFiles(t.db, files.map((f) => ({ path: FIXTURES + f })));
    assert.deepEqual(outcomes.filter((o) => o.error), []);
    await analyzeGraph(t.db);
    const taken = { edgeAnchors: 0, presence: 0 };
    const finalLimit = /\bLIMIT\s+\d+\s*;?\s*$/i;
    for (const query of [...CONSTRUCTED, ...AD_QUERIES.map((q) => q.query)]) {
      for (const text of finalLimit.test(query) ? [query.replace(finalLimit, ''), query] : [query]) {
        await compare(text, finalLimit.test(text));
      }
    }
    async function compare(text: string, limited: boolean) {
      const prepared = prepareCypher(text);
      const run = async (options: ExecuteOptions) => {
        try {
          const result = await executeQuery(prepared, new GraphSource(t.db), undefined, options);
          taken.edgeAnchors += options.edgeAnchors === false ? 0 : result.ctx.plan.edgeAnchorsTaken;
          taken.presence += options.presence === false ? 0 : result.ctx.plan.presenceTaken;
          return result.rows;
        } catch (err) {
          if (err instanceof CypherError) return err.message;
          throw err;
        }
      };
      const canonical = (rows: unknown[] | string) => (typeof rows === 'string' ? rows : limited ? rows.length : rows.map((r) => JSON.stringify(r)).sort());
      const plain = canonical(await run({ edgeAnchors: false, presence: false }));
      assert.deepEqual(canonical(await run({ presence: false })), plain, text);
      assert.deepEqual(canonical(await run({ edgeAnchors: false })), plain, text);
    }
    assert.ok(taken.edgeAnchors >= 20, `start candidates from relationship kinds taken ${taken.edgeAnchors} times`);
    assert.ok(taken.presence >= 5, `presence tests taken ${taken.presence} times`);
  } finally {
    await t.close();
  }
});
