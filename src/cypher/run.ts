import type { Db } from '../db/create-db.ts';
import { CypherError } from './errors.ts';
import { checkGraphLimit } from '../graph/answers/limits.ts';
import { DEFAULT_LIMITS } from './context.ts';
import { executeQuery } from './execute.ts';
import { GraphSource } from './graph-source.ts';
import { prepareCypher } from './prepare.ts';
import { cypherAnswer, isEmptyAnswer, type CypherAnswer } from './result.ts';

export interface RunOptions {
  includeProperties: boolean;
  /** Updating clauses enabled on this server (--cypher-mutations). */
  mutations: boolean;
  /** The caller holds graphdb/Mutate. */
  mayMutate: boolean;
  /** Most nodes + edges + literals in an answer (--graph-result-limit). */
  resultLimit: number;
}

/**
 * A Cypher request from text to BloodHound's answer: prepare (400 on any error), refuse a mutation
 * the caller may not make, execute, shape. 'empty' when a read-only query returned nothing.
 */
export async function runCypher(db: Db, text: string, options: RunOptions): Promise<CypherAnswer | 'empty' | 'denied'> {
  const prepared = prepareCypher(text, { mutations: options.mutations });
  if (prepared.hasMutation) {
    if (!options.mayMutate) return 'denied';
    throw new CypherError('updating clauses are not supported yet');
  }
  try {
    const result = await executeQuery(prepared, new GraphSource(db), { ...DEFAULT_LIMITS, maxRows: Math.max(DEFAULT_LIMITS.maxRows, options.resultLimit) });
    const graph = await cypherAnswer(result, options.includeProperties, options.resultLimit);
    checkGraphLimit(Object.keys(graph.nodes).length + graph.edges.length + (graph.literals?.length ?? 0), options.resultLimit);
    return isEmptyAnswer(graph) ? 'empty' : graph;
  } catch (err) {
    if (err instanceof RangeError) throw new CypherError('query is too complex to evaluate (nested too deeply)');
    throw err;
  }
}
