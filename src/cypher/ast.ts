/**
 * The Cypher syntax tree the grammar (grammar.ts) builds. Every node carries `at`, the offset of its
 * first character in the query text (errors turn it into `line L:C`).
 */

export type Expr =
  | { t: 'lit'; at: number; value: null | boolean | number | string; float?: boolean }
  | { t: 'param'; at: number; name: string }
  | { t: 'var'; at: number; name: string }
  | { t: 'prop'; at: number; target: Expr; key: string }
  | { t: 'index'; at: number; target: Expr; index: Expr }
  | { t: 'slice'; at: number; target: Expr; from: Expr | null; to: Expr | null }
  | { t: 'haslabels'; at: number; target: Expr; labels: LabelExpr }
  | { t: 'list'; at: number; items: Expr[] }
  | { t: 'map'; at: number; entries: Array<[string, Expr]> }
  | { t: 'not'; at: number; arg: Expr }
  | { t: 'and' | 'or' | 'xor'; at: number; args: Expr[] }
  | { t: 'cmp'; at: number; ops: CmpOp[]; args: Expr[] }
  | { t: 'bin'; at: number; op: '+' | '-' | '*' | '/' | '%' | '^'; left: Expr; right: Expr }
  | { t: 'neg'; at: number; arg: Expr }
  | { t: 'strop'; at: number; op: StrOp; left: Expr; right: Expr }
  | { t: 'isnull'; at: number; arg: Expr; negated: boolean }
  | { t: 'call'; at: number; name: string; distinct: boolean; args: Expr[] }
  | { t: 'countstar'; at: number }
  | { t: 'case'; at: number; subject: Expr | null; whens: Array<[Expr, Expr]>; otherwise: Expr | null }
  | { t: 'quant'; at: number; kind: 'all' | 'any' | 'none' | 'single'; variable: string; list: Expr; where: Expr | null }
  | { t: 'listcomp'; at: number; variable: string; list: Expr; where: Expr | null; map: Expr | null }
  | { t: 'reduce'; at: number; acc: string; init: Expr; variable: string; list: Expr; map: Expr }
  | { t: 'pattern'; at: number; pattern: PatternPart }
  | { t: 'patcomp'; at: number; pattern: PatternPart; where: Expr | null; map: Expr };

export type CmpOp = '=' | '<>' | '<' | '>' | '<=' | '>=';
export type StrOp = 'STARTS WITH' | 'ENDS WITH' | 'CONTAINS' | '=~' | 'IN';

/** Label expressions: `:A:B` (and), `:A|B` (or), `:!A`, `:%` (any label). */
export type LabelExpr =
  | { t: 'label'; name: string }
  | { t: 'and' | 'or'; args: LabelExpr[] }
  | { t: 'not'; arg: LabelExpr }
  | { t: 'anylabel' };

export interface NodePattern {
  at: number;
  variable: string | null;
  labels: LabelExpr | null;
  props: Expr | null;
}

export interface Range {
  min: number | null;
  max: number | null;
}

export interface RelPattern {
  at: number;
  variable: string | null;
  types: string[];
  direction: 'out' | 'in' | 'both';
  /** null: exactly one hop; otherwise a variable-length relationship (`*`, `*2`, `*1..`, `*..3`). */
  range: Range | null;
  props: Expr | null;
}

/** One comma-separated part of a pattern: an optional path variable over a chain of nodes. */
export interface PatternPart {
  at: number;
  pathVariable: string | null;
  shortest: 'shortest' | 'all' | null;
  nodes: NodePattern[];
  rels: RelPattern[];
}

export interface ProjectionItem {
  at: number;
  expr: Expr;
  alias: string | null;
  /** The expression as written (the column name when there is no alias). */
  text: string;
}

export interface SortItem {
  expr: Expr;
  descending: boolean;
}

export interface Projection {
  distinct: boolean;
  star: boolean;
  items: ProjectionItem[];
  orderBy: SortItem[];
  skip: Expr | null;
  limit: Expr | null;
}

export type SetItem =
  | { at: number; kind: 'property'; target: Expr; key: string; value: Expr }
  | { at: number; kind: 'replace' | 'merge'; variable: string; value: Expr }
  | { at: number; kind: 'labels'; variable: string; labels: string[] };

export type RemoveItem =
  | { at: number; kind: 'property'; target: Expr; key: string }
  | { at: number; kind: 'labels'; variable: string; labels: string[] };

export type Clause =
  | { c: 'match'; at: number; optional: boolean; patterns: PatternPart[]; where: Expr | null }
  | { c: 'unwind'; at: number; expr: Expr; alias: string }
  | { c: 'with'; at: number; projection: Projection; where: Expr | null }
  | { c: 'return'; at: number; projection: Projection }
  | { c: 'create'; at: number; patterns: PatternPart[] }
  | { c: 'merge'; at: number; pattern: PatternPart; onCreate: SetItem[]; onMatch: SetItem[] }
  | { c: 'set'; at: number; items: SetItem[] }
  | { c: 'remove'; at: number; items: RemoveItem[] }
  | { c: 'delete'; at: number; detach: boolean; exprs: Expr[] };

export interface SingleQuery {
  at: number;
  clauses: Clause[];
}

export interface Query {
  parts: SingleQuery[];
  /** `UNION ALL` (true) or `UNION` (false) between part i and i + 1. */
  unionAll: boolean[];
}

export const UPDATING_CLAUSES = new Set<Clause['c']>(['create', 'merge', 'set', 'remove', 'delete']);
