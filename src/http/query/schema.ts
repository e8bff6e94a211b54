/**
 * A TypeBox description of every query parameter an endpoint accepts, for the OpenAPI document only.
 * Validation is parseQuery's job (it owns the contract's error texts): do not let Fastify validate
 * with this schema, whose coercions and messages differ from the contract.
 */
import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { LIMIT_PARAM, MAX_PAGING, SKIP_PARAM, SORT_PARAM, type CompiledFilter, type CompiledQuery, type ParamSpec } from './declaration.ts';

const OPERAND: Record<CompiledFilter['kind'], string> = {
  string: 'any text without a colon',
  boolean: 'one of t, T, TRUE, true, True, f, F, FALSE, false, False',
  uuid: 'UUID, 8-4-4-4-12 hexadecimal groups',
  integer: 'optionally negative decimal integer',
  timestamp: 'RFC-3339 with a T separator, optional 1-9 fraction digits, Z or ±hh:mm',
};

export function querystringSchema(q: CompiledQuery): TObject {
  const properties: Record<string, TSchema> = {};
  for (const f of q.filters.values()) properties[f.name] = Type.Optional(filterSchema(f));

  // sort_by: a repeatable enum (`?sort_by=name&sort_by=-created_at`), absent where nothing is sortable.
  const sortNames = [...q.sortable.keys()];
  if (sortNames.length > 0) {
    properties[SORT_PARAM] = Type.Optional(
      Type.Array(Type.String({ enum: sortNames.flatMap((n) => [n, `-${n}`]) }), {
        description: `Sort by a column, repeatable; a leading hyphen sorts descending. Sortable columns: ${sortNames.join(', ')}.`,
      }),
    );
  }

  if (q.paging) {
    properties[SKIP_PARAM] = Type.Optional(
      Type.Integer({ minimum: 0, maximum: MAX_PAGING, default: 0, description: 'Number of items to skip.' }),
    );
    properties[LIMIT_PARAM] = Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_PAGING,
        default: q.paging.defaultLimit,
        description: 'Upper bound on items returned; 0 means no bound.',
      }),
    );
  }

  for (const [name, spec] of q.params) properties[name] = Type.Optional(paramSchema(spec));
  return Type.Object(properties);
}

function filterSchema(f: CompiledFilter): TSchema {
  const predicates = [...f.allowed].join(', ');
  const enumNames = f.enumEntries ? `; names: ${Object.keys(f.enum ?? {}).join(', ')} (or their integer values)` : '';
  const nullable = f.nullable ? '; eq:null / neq:null match a missing value' : '';
  const description =
    `${f.kind} filter, repeatable: [predicate:]operand, a bare operand means eq. ` +
    `Predicates: ${predicates}. Operand: ${OPERAND[f.kind]}${enumNames}${nullable}. ` +
    'Repeated eq / ~eq values are alternatives; other predicates all apply.';
  return Type.Array(Type.String(), { description });
}

function paramSchema(spec: ParamSpec): TSchema {
  const description = spec.description !== undefined ? { description: spec.description } : {};
  switch (spec.type) {
    case 'boolean':
      return Type.Boolean({ ...description, default: spec.default });
    case 'integer':
      return Type.Integer({
        ...description,
        ...(spec.default !== undefined ? { default: spec.default } : {}),
        ...(spec.min !== undefined ? { minimum: spec.min } : {}),
        ...(spec.max !== undefined ? { maximum: spec.max } : {}),
      });
    case 'string': {
      const extra = { ...description, ...(spec.default !== undefined ? { default: spec.default } : {}) };
      return spec.enum ? Type.String({ ...extra, enum: [...spec.enum] }) : Type.String(extra);
    }
    case 'string[]':
      return Type.Array(Type.String(), description);
    case 'timestamp':
      return Type.String({ ...description, format: 'date-time' });
  }
}
