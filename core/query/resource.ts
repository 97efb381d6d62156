// A resource definition: what a collection reads (SQL from the server, never the client),
// which fields can be sorted and filtered, and of which type.
import type { Queryable } from '../../store/db.ts';

export type FieldType = 'string' | 'integer' | 'number' | 'boolean' | 'date' | 'timestamp' | 'enum' | 'string[]' | 'permission';

/** Binds values while a statement is built: every client value goes through bind. */
export interface SqlContext {
  /** adds a bound parameter and returns its placeholder (`$3`, or `$3::cast`) */
  bind(value: unknown, cast?: string): string;
  /** the request's text query (q), for fields that rank against it */
  query?: string;
  /** SQL expression of the snapshot instant the walk is pinned to (timestamptz) */
  snapshot: string;
}

/** SQL text, or a function of the statement being built (for expressions that bind values). */
export type Sql = string | ((c: SqlContext) => string);

export interface FieldDef {
  /** SQL expression of the field over `from`; unused for permission fields */
  sql: Sql;
  type: FieldType;
  /** accepted values of an enum (or of a permission field's operand) */
  enum?: readonly string[];
  sortable?: boolean;
  /** default true (except permission fields' sql, which is never compared) */
  filterable?: boolean;
  /** false when the expression is never NULL (lets the keyset use a row comparison) */
  nullable?: boolean;
  /** a sort that exists only with a query to rank against (relevance) */
  requiresQuery?: boolean;
  /** SQL type used to bind values (default by type: text, bigint, numeric, boolean, date, timestamptz) */
  cast?: string;
  /** permits/forbids: boolean SQL for one operand placeholder; NULL when the source is silent */
  permission?: { permits(operand: string, c: SqlContext): string; forbids(operand: string, c: SqlContext): string };
  description?: string;
}

export interface ResourceDef {
  /** cursors are bound to it */
  name: string;
  /** FROM clause: a table with its alias, or a parenthesized query with one (built with the statement's values when it binds any) */
  from: Sql;
  /** SQL of the unique, non-null id (the last tiebreaker of every sort) */
  id: string;
  /** SELECT list of the row handed to the mapper */
  select: string;
  fields: Record<string, FieldDef>;
  /** e.g. `name` or `-population,name` */
  defaultSort: string;
  /** rows with this column after the walk's snapshot are left out of every page (created_at) */
  snapshotColumn?: string;
  /** oldest snapshot still answerable (ISO); a cursor pinned before it is cursor_snapshot_gone */
  retainedSince?: (db: Queryable) => Promise<string | null>;
}

export const CASTS: Record<FieldType, string> = {
  string: 'text',
  enum: 'text',
  integer: 'bigint',
  number: 'numeric',
  boolean: 'boolean',
  date: 'date',
  timestamp: 'timestamptz',
  'string[]': 'text[]',
  permission: 'text',
};

export const castOf = (f: FieldDef) => f.cast ?? CASTS[f.type];

export function sqlOf(sql: Sql, c: SqlContext): string {
  return typeof sql === 'function' ? sql(c) : sql;
}

/** Collects bound values for one statement. */
export class SqlBuilder implements SqlContext {
  readonly values: unknown[] = [];
  snapshot = 'statement_timestamp()';
  constructor(readonly query?: string) {}

  /** Pins the statement to a snapshot: the instant given, or the statement's own time ($1 when first). */
  pin(snapshot: string | null): this {
    this.snapshot = `coalesce(${this.bind(snapshot, 'timestamptz')}, statement_timestamp())`;
    return this;
  }

  bind(value: unknown, cast?: string): string {
    this.values.push(value);
    return `$${this.values.length}${cast ? `::${cast}` : ''}`;
  }
}
