// A parsed CQL2 filter as SQL over a collection's queryables. Every value is bound (never
// pasted); property names resolve only to the collection's own SQL expressions; operand types
// are checked, and a mismatch or an unknown property is 400 filter_unparsable with its position.
import type { Queryable } from './collections.ts';
import { type CmpOp, type Expr, type Operand, parseCql2 } from './cql2.ts';
import { filterError, isDateText, isTimestampText } from './cql2-lex.ts';
import { CRS84, type Crs, geometryFromTextSql } from './crs.ts';

/** Bound parameters of one statement: bind() returns the placeholder with its cast. */
export class Params {
  readonly values: unknown[] = [];
  bind(value: unknown, cast: string): string {
    this.values.push(value);
    return `$${this.values.length}::${cast}`;
  }
}

type Type = 'string' | 'number' | 'boolean' | 'date' | 'timestamp' | 'geometry';

const SPATIAL_SQL = {
  S_INTERSECTS: 'ST_Intersects',
  S_EQUALS: 'ST_Equals',
  S_DISJOINT: 'ST_Disjoint',
  S_TOUCHES: 'ST_Touches',
  S_WITHIN: 'ST_Within',
  S_OVERLAPS: 'ST_Overlaps',
  S_CROSSES: 'ST_Crosses',
  S_CONTAINS: 'ST_Contains',
} as const;

/** Dates and timestamps compare with each other. */
const family = (t: Type) => (t === 'timestamp' ? 'date' : t);

class Compiler {
  constructor(
    private readonly text: string,
    private readonly queryables: Queryable[],
    private readonly params: Params,
    private readonly crs: Crs,
  ) {}

  private fail(pos: number, why: string): never {
    throw filterError(this.text, pos, why);
  }

  private property(name: string, pos: number): Queryable {
    const q = this.queryables.find((x) => x.name === name) ?? this.queryables.find((x) => x.name.toLowerCase() === name.toLowerCase());
    if (!q) this.fail(pos, `Unknown property ${JSON.stringify(name)}; the queryables are ${this.queryables.map((x) => x.name).join(', ')}`);
    return q;
  }

  private typeOf(o: Operand): Type {
    switch (o.k) {
      case 'prop': {
        const t = this.property(o.name, o.pos).type;
        return t === 'integer' ? 'number' : t;
      }
      case 'str':
      case 'casei':
        return 'string';
      case 'num':
        return 'number';
      case 'bool':
        return 'boolean';
      case 'date':
        return 'date';
      case 'timestamp':
        return 'timestamp';
      case 'geom':
        return 'geometry';
    }
  }

  /** The type of `o` when compared with something of type `other` (a string reads as a date where one is wanted). */
  private typeBeside(o: Operand, other: Type): Type {
    const t = this.typeOf(o);
    if (o.k === 'str' && (other === 'date' || other === 'timestamp')) {
      if (isDateText(o.value)) return 'date';
      if (isTimestampText(o.value)) return 'timestamp';
      this.fail(o.pos, `${JSON.stringify(o.value)} is not a date or timestamp`);
    }
    return t;
  }

  private sql(o: Operand, as?: Type): string {
    switch (o.k) {
      case 'prop':
        return this.property(o.name, o.pos).sql;
      case 'str':
        if (as === 'date' || as === 'timestamp') return this.params.bind(o.value, as === 'date' ? 'date' : 'timestamptz');
        return this.params.bind(o.value, 'text');
      case 'num':
        return this.params.bind(o.value, 'float8');
      case 'bool':
        return this.params.bind(o.value, 'boolean');
      case 'date':
        return this.params.bind(o.value, 'date');
      case 'timestamp':
        return this.params.bind(o.value, 'timestamptz');
      case 'geom':
        return geometryFromTextSql(this.params.bind(o.wkt, 'text'), this.crs);
      case 'casei':
        if (this.typeOf(o.a) !== 'string') this.fail(o.pos, 'CASEI takes a string');
        return `lower(${this.sql(o.a)})`;
    }
  }

  /** Operands that must share one comparable type; returns their SQL. */
  private alike(ops: Operand[], pos: number, what: string, allowed?: Array<ReturnType<typeof family>>): string[] {
    const known = ops.map((o) => (o.k === 'str' ? null : this.typeOf(o)));
    const anchor = known.find((t) => t !== null) ?? 'string';
    const types = ops.map((o) => this.typeBeside(o, anchor));
    types.forEach((t, i) => {
      if (t === 'geometry') this.fail(ops[i].pos, `${what} does not take a geometry; use a spatial function such as S_INTERSECTS`);
      if (family(t) !== family(anchor)) this.fail(ops[i].pos, `${what} compares a ${anchor} with a ${t}`);
    });
    if (allowed && !allowed.includes(family(anchor))) this.fail(pos, `${what} takes numbers or dates, not a ${anchor}`);
    return ops.map((o, i) => this.sql(o, types[i]));
  }

  compile(e: Expr): string {
    switch (e.k) {
      case 'and':
      case 'or':
        return `(${this.compile(e.a)} ${e.k.toUpperCase()} ${this.compile(e.b)})`;
      case 'not':
        return `(NOT ${this.compile(e.a)})`;
      case 'literal':
        return e.value ? 'TRUE' : 'FALSE';
      case 'cmp': {
        const [a, b] = this.alike([e.a, e.b], e.pos, `${e.op as CmpOp}`);
        return `(${a} ${e.op} ${b})`;
      }
      case 'like': {
        for (const o of [e.a, e.b]) if (this.typeOf(o) !== 'string') this.fail(o.pos, 'LIKE compares strings');
        return `(${this.sql(e.a)} ${e.not ? 'NOT ' : ''}LIKE ${this.sql(e.b)})`;
      }
      case 'between': {
        const [a, lo, hi] = this.alike([e.a, e.lo, e.hi], e.pos, 'BETWEEN', ['number', 'date']);
        return `(${a} ${e.not ? 'NOT ' : ''}BETWEEN ${lo} AND ${hi})`;
      }
      case 'in': {
        const [a, ...list] = this.alike([e.a, ...e.list], e.pos, 'IN');
        return `(${a} ${e.not ? 'NOT ' : ''}IN (${list.join(', ')}))`;
      }
      case 'isnull':
        if (e.a.k !== 'prop') this.fail(e.a.pos, 'IS NULL takes a property');
        return `(${this.sql(e.a)} IS ${e.not ? 'NOT ' : ''}NULL)`;
      case 'spatial': {
        for (const o of [e.a, e.b]) if (this.typeOf(o) !== 'geometry') this.fail(o.pos, `${e.fn} takes geometries (the geometry property or a WKT or BBOX literal)`);
        return `${SPATIAL_SQL[e.fn]}(${this.sql(e.a)}, ${this.sql(e.b)})`;
      }
    }
  }
}

/** CQL2 text to a SQL condition, binding its values into `params`. */
export function compileCql2(text: string, queryables: Queryable[], params: Params, crs: Crs = CRS84): string {
  return new Compiler(text, queryables, params, crs).compile(parseCql2(text));
}

/** CQL2 text to a SQL condition and its values ($1 onwards), e.g. for tests and diagnostics. */
export function cql2ToSql(text: string, queryables: Queryable[], crs: Crs = CRS84): { sql: string; values: unknown[] } {
  const params = new Params();
  const sql = compileCql2(text, queryables, params, crs);
  return { sql, values: params.values };
}
