// The shared collection machinery: resource definitions, filters, sorts, cursors, pages.
export { CURSOR_RETENTION_SECONDS, type CursorPayload, openCursor, peekCursor, signCursor } from './cursor.ts';
export { type FilterGroup, type FilterSet, type IndeterminateMode, OPERATORS, OPS_BY_TYPE, type Operator, addCondition, parseFilter } from './filter.ts';
export { collectionParams, timeParams } from './params.ts';
export {
  type CollectionOptions,
  type CollectionPage,
  type CollectionParams,
  type CollectionResult,
  DEFAULT_SIZE,
  MAX_SIZE,
  TOTAL_CAP,
  type Row,
  type Total,
  type Where,
  runCollection,
} from './query.ts';
export type { FieldDef, FieldType, ResourceDef, Sql, SqlContext } from './resource.ts';
export { type SortSpec, parseSort } from './sort.ts';
