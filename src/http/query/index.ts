/**
 * The shared filter / sort / paging engine (CONTRACT.md §3; STYLE.md point 5).
 *
 *   const listQuery = defineQuery({ filters, sortable, defaultSort, tieBreaker, paging, params });
 *   const parsed = parseQuery(listQuery, request.query);           // 400s with the contract's texts
 *   let qb = applyFilters(db.selectFrom('t').selectAll(), listQuery, parsed);
 *   qb = applyPaging(applySort(qb, listQuery, parsed), parsed);
 */
export {
  defineQuery,
  enumMatches,
  KIND_PREDICATES,
  MAX_PAGING,
  MAX_VALUES,
  type CompiledFilter,
  type CompiledQuery,
  type FilterColumn,
  type FilterKind,
  type ParamSpec,
  type Predicate,
  type QueryDeclaration,
  type SortTerm,
} from './declaration.ts';
export { parseQuery, parseFilterValue, type FilterValue, type ParsedFilter, type ParsedQuery } from './parse.ts';
export {
  applyFilters,
  applyPaging,
  applySort,
  filterConditions,
  type Filterable,
  type Pageable,
  type Sortable,
} from './apply.ts';
export { querystringSchema } from './schema.ts';
