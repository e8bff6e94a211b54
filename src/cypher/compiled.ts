import type { Expr } from './ast.ts';
import type { ExecContext } from './context.ts';
import { byObjectidTail, compareOp, evaluate, labelsMatch, property, stringOp, truth } from './eval.ts';
import { positionIndex, valueAtPosition } from './property-columns.ts';
import { NodeRef, RelRef, type Row, type Value } from './values.ts';

/** An expression made into closures over one execution: the same value as evaluate() gives in the row. */
export type Compiled = (row: Row) => Value;

/**
 * Compiles an expression for evaluation over many rows (a step's prefilter tests millions of
 * matches): the common parts — literals, variables, node properties read from the probe's columns,
 * comparisons, boolean operators, null tests, labels, string operators with the objectid tail test —
 * become closures (no dispatch on the expression's kind per row, columns looked up once); any other
 * part is evaluate() itself. Same values, same errors, same reads of details as evaluate() (with
 * ctx.probing as the caller sets it).
 */
export function compile(e: Expr, ctx: ExecContext): Compiled {
  switch (e.t) {
    case 'lit': {
      const v = e.value;
      return () => v;
    }
    case 'var': {
      const name = e.name;
      return (row) => row[name] ?? null;
    }
    case 'prop': {
      const key = e.key;
      const column = ctx.probeColumns.get(key);
      if (e.target.t === 'var' && column !== undefined) {
        // The column's values by snapshot position, looked up once: two array reads a node (the same
        // value its details hold, so read from the column even when they are loaded).
        const name = e.target.name;
        const graph = ctx.view.graph;
        const index = positionIndex(column, graph);
        const values = column.values;
        return (row) => {
          const target = row[name] ?? null;
          if (ctx.probing && target instanceof NodeRef) {
            const p = graph.position(target.id);
            if (p >= 0) {
              const at = index[p];
              return at < 0 ? null : ((values[at] as Value | undefined) ?? null);
            }
          }
          return property(target, key, e, ctx);
        };
      }
      if (e.target.t === 'var') {
        const name = e.target.name;
        const graph = ctx.view.graph;
        return (row) => {
          const target = row[name] ?? null;
          // As property(): a node not read, while probing, from the column of its key.
          if (column !== undefined && ctx.probing && target instanceof NodeRef && !ctx.nodes.has(target.id)) {
            return (valueAtPosition(column, graph, target.id) as Value | undefined) ?? null;
          }
          if (ctx.probing && target instanceof RelRef) {
            const v = ctx.edgeColumnValue(target, key);
            if (v !== undefined) return v;
          }
          return property(target, key, e, ctx);
        };
      }
      const target = compile(e.target, ctx);
      return (row) => property(target(row), key, e, ctx);
    }
    case 'cmp': {
      if (e.ops.length !== 1) break;
      const op = e.ops[0];
      const left = compile(e.args[0], ctx);
      const right = compile(e.args[1], ctx);
      return (row) => compareOp(op, left(row), right(row));
    }
    case 'not': {
      const arg = compile(e.arg, ctx);
      const inner = e.arg;
      return (row) => {
        const v = truth(arg(row), inner, ctx);
        return v === null ? null : !v;
      };
    }
    case 'and': case 'or': {
      const args = e.args.map((x) => compile(x, ctx));
      const exprs = e.args;
      const stop = e.t === 'or';
      return (row) => {
        let unknown = false;
        for (let i = 0; i < args.length; i++) {
          const v = truth(args[i](row), exprs[i], ctx);
          if (v === stop) return stop;
          if (v === null) unknown = true;
        }
        return unknown ? null : !stop;
      };
    }
    case 'isnull': {
      const arg = compile(e.arg, ctx);
      const negated = e.negated;
      return (row) => (arg(row) === null) !== negated;
    }
    case 'haslabels': {
      if (e.target.t !== 'var') break;
      const name = e.target.name;
      const labels = e.labels;
      return (row) => {
        const target = row[name] ?? null;
        if (target instanceof NodeRef) return labels.t === 'label' ? ctx.hasLabel(target.id, labels.name) : labelsMatch(labels, (l) => ctx.hasLabel(target.id, l));
        return evaluate(e, row, ctx);
      };
    }
    case 'strop': {
      const left = compile(e.left, ctx);
      const right = compile(e.right, ctx);
      const op = e.op;
      const tails = op === 'ENDS WITH' || op === '=~';
      return (row) => {
        if (tails && ctx.probing && ctx.objectidTails !== null) {
          const decided = byObjectidTail(e, row, ctx);
          if (decided !== undefined) return decided;
        }
        return stringOp(op, left(row), right(row), e, ctx);
      };
    }
    default:
      break;
  }
  return (row) => evaluate(e, row, ctx);
}
