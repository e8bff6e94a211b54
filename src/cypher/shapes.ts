import type { Query } from './ast.ts';

/**
 * Query shapes: a query text with its plain string literals lifted out, so that texts differing only
 * in them (`... {objectid: 'S-1-5-21-…-1104'} ...`, one per user asked about) are parsed once. The
 * shape is the text with each literal's content replaced by a marker (`'\uE000k\uE001'`); its syntax
 * tree is the parse of that text, and a concrete text's tree is it with the markers' values put
 * back and every offset moved by the difference in length of the literals before it. That is the
 * tree parsing the concrete text gives: a plain literal (no backslash) is a token whatever its
 * characters, and the grammar only copies a literal's characters into its value (and into the
 * source text it keeps of a projection item). Anything else falls back to a full parse: a text
 * holding the marker characters, an unterminated literal or comment, a shape whose tree does not
 * hold each marker exactly once as a literal's value, a shape that does not parse (the full parse
 * of the concrete text then reports the error at its own position).
 */

const OPEN = '\uE000';
const CLOSE = '\uE001';

export interface Literal {
  /** Offsets of the literal (quotes included) in the concrete text. */
  start: number;
  end: number;
  quote: "'" | '"';
  value: string;
}

export interface Lifted {
  /** The text with each lifted literal's content replaced by its marker. */
  shape: string;
  literals: Literal[];
}

/** The literals of a text that can be lifted, or null when the text is in doubt (or has none). */
export function liftLiterals(text: string): Lifted | null {
  if (text.includes(OPEN) || text.includes(CLOSE)) return null;
  const literals: Literal[] = [];
  let shape = '';
  let copied = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i];
    if (c === '/' && text[i + 1] === '/') {
      const nl = text.indexOf('\n', i + 2);
      i = nl < 0 ? n : nl;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) return null;
      i = end + 2;
    } else if (c === '`') {
      const end = text.indexOf('`', i + 1);
      if (end < 0) return null;
      i = end + 1;
    } else if (c === "'" || c === '"') {
      let j = i + 1;
      let plain = true;
      while (j < n && text[j] !== c) {
        if (text[j] === '\\') {
          plain = false;
          j++;
        }
        j++;
      }
      if (j >= n) return null;
      if (plain) {
        const k = literals.length;
        literals.push({ start: i, end: j + 1, quote: c, value: text.slice(i + 1, j) });
        shape += `${text.slice(copied, i + 1)}${OPEN}${k}${CLOSE}`;
        copied = j;
      }
      i = j + 1;
    } else {
      i++;
    }
  }
  if (literals.length === 0) return null;
  return { shape: shape + text.slice(copied), literals };
}

/** A parsed shape: its tree and where its literals lie in the shape text. */
export interface Shape {
  query: Query;
  /** Length of the shape text (for the cache's size estimate). */
  length: number;
  /** Offsets of each literal (quotes included) in the shape text. */
  spans: Array<{ start: number; end: number }>;
}

const MARKER = new RegExp(`^${OPEN}(\\d+)${CLOSE}$`);
const QUOTED = new RegExp(`(['"])${OPEN}(\\d+)${CLOSE}\\1`, 'g');

/** The shape of a lifted text from its parsed tree, or null when the tree does not hold each marker once as a literal's value. */
export function shapeOf(lifted: Lifted, query: Query): Shape | null {
  const seen = new Array<number>(lifted.literals.length).fill(0);
  let sound = true;
  const visit = (v: unknown, owner: Record<string, unknown> | null, key: string | null): void => {
    if (!sound) return;
    if (typeof v === 'string') {
      if (!v.includes(OPEN) && !v.includes(CLOSE)) return;
      const m = MARKER.exec(v);
      if (m && owner?.t === 'lit' && key === 'value') {
        seen[Number(m[1])]++;
        return;
      }
      // Elsewhere (a projection item's source text) only as a whole quoted literal.
      if (v.replace(QUOTED, '').includes(OPEN) || v.replace(QUOTED, '').includes(CLOSE)) sound = false;
      return;
    }
    if (Array.isArray(v)) {
      for (const x of v) visit(x, null, null);
      return;
    }
    if (v !== null && typeof v === 'object') {
      if (Object.getPrototypeOf(v) !== Object.prototype) {
        sound = false;
        return;
      }
      for (const [k, x] of Object.entries(v)) visit(x, v as Record<string, unknown>, k);
    }
  };
  visit(query, null, null);
  if (!sound || seen.some((count) => count !== 1)) return null;
  const spans: Shape['spans'] = [];
  let delta = 0;
  for (const [k, l] of lifted.literals.entries()) {
    const start = l.start + delta;
    const length = 2 + `${OPEN}${k}${CLOSE}`.length;
    spans.push({ start, end: start + length });
    delta += length - (l.end - l.start);
  }
  return { query, length: lifted.shape.length, spans };
}

/** The tree of a concrete text of a shape: the literals' values in, offsets moved. */
export function instantiate(shape: Shape, literals: Literal[]): Query {
  const { spans } = shape;
  const offset = (at: number): number => {
    // The last literal starting at or before `at`: inside it, the same place from its start; after it, moved by the lengths' difference.
    let k = -1;
    for (let i = 0; i < spans.length && spans[i].start <= at; i++) k = i;
    if (k < 0) return at;
    if (at < spans[k].end) return literals[k].start + Math.min(at - spans[k].start, literals[k].end - literals[k].start - 1);
    return at + (literals[k].end - spans[k].end);
  };
  const copy = (v: unknown, owner: Record<string, unknown> | null, key: string | null): unknown => {
    if (typeof v === 'string') {
      if (!v.includes(OPEN)) return v;
      const m = MARKER.exec(v);
      if (m && owner?.t === 'lit' && key === 'value') return literals[Number(m[1])].value;
      return v.replace(QUOTED, (_all, _quote, k: string) => {
        const l = literals[Number(k)];
        return `${l.quote}${l.value}${l.quote}`;
      });
    }
    if (typeof v === 'number') return key === 'at' ? offset(v) : v;
    if (Array.isArray(v)) return v.map((x) => copy(x, null, null));
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[k] = copy(x, v as Record<string, unknown>, k);
      return out;
    }
    return v;
  };
  return copy(shape.query, null, null) as Query;
}
