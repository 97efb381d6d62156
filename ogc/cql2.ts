// CQL2 text (OGC 21-065) parsed into a small tree: comparisons, AND/OR/NOT, LIKE, BETWEEN, IN,
// IS NULL, CASEI, DATE/TIMESTAMP literals and the spatial functions with WKT and BBOX literals.
// Every node keeps its character position; a filter that does not parse is 400 filter_unparsable
// naming the position (counted from 1). cql2-sql.ts turns the tree into bound SQL.
import { ApiError } from '../core/errors.ts';
import { MAX_FILTER_LENGTH, type Token, filterError, isDateText, isTimestampText, tokenize } from './cql2-lex.ts';

const MAX_DEPTH = 64;

export type CmpOp = '=' | '<>' | '<' | '>' | '<=' | '>=';
export const SPATIAL_FUNCTIONS = ['S_INTERSECTS', 'S_EQUALS', 'S_DISJOINT', 'S_TOUCHES', 'S_WITHIN', 'S_OVERLAPS', 'S_CROSSES', 'S_CONTAINS'] as const;
export type SpatialFn = (typeof SPATIAL_FUNCTIONS)[number];

export type Operand =
  | { k: 'prop'; name: string; pos: number }
  | { k: 'str'; value: string; pos: number }
  | { k: 'num'; value: number; pos: number }
  | { k: 'bool'; value: boolean; pos: number }
  | { k: 'date'; value: string; pos: number }
  | { k: 'timestamp'; value: string; pos: number }
  | { k: 'geom'; wkt: string; pos: number }
  | { k: 'casei'; a: Operand; pos: number };

export type Expr =
  | { k: 'and' | 'or'; a: Expr; b: Expr }
  | { k: 'not'; a: Expr }
  | { k: 'literal'; value: boolean }
  | { k: 'cmp'; op: CmpOp; a: Operand; b: Operand; pos: number }
  | { k: 'like'; not: boolean; a: Operand; b: Operand; pos: number }
  | { k: 'between'; not: boolean; a: Operand; lo: Operand; hi: Operand; pos: number }
  | { k: 'in'; not: boolean; a: Operand; list: Operand[]; pos: number }
  | { k: 'isnull'; not: boolean; a: Operand; pos: number }
  | { k: 'spatial'; fn: SpatialFn; a: Operand; b: Operand; pos: number };

const KEYWORDS = new Set(['AND', 'OR', 'NOT', 'LIKE', 'BETWEEN', 'IN', 'IS', 'NULL', 'TRUE', 'FALSE', 'DATE', 'TIMESTAMP', 'CASEI', 'ACCENTI', 'BBOX', ...SPATIAL_FUNCTIONS]);
const GEOMETRY_TYPES = ['POINT', 'LINESTRING', 'POLYGON', 'MULTIPOINT', 'MULTILINESTRING', 'MULTIPOLYGON', 'GEOMETRYCOLLECTION'];

class Parser {
  private i = 0;
  private depth = 0;
  constructor(
    private readonly text: string,
    private readonly toks: Token[],
  ) {}

  private get tok() {
    return this.toks[this.i];
  }
  private fail(why: string, pos = this.tok.pos): never {
    throw filterError(this.text, pos, why);
  }
  private found() {
    return this.tok.t === 'end' ? 'the end of the filter' : JSON.stringify(this.tok.t === 'str' ? `'${this.tok.v}'` : this.tok.v);
  }
  private isWord(w: string) {
    return this.tok.t === 'word' && this.tok.v.toUpperCase() === w;
  }
  private eatWord(w: string) {
    if (!this.isWord(w)) return false;
    this.i++;
    return true;
  }
  private expectWord(w: string) {
    if (!this.eatWord(w)) this.fail(`Expected ${w}, found ${this.found()}`);
  }
  private isSym(s: string) {
    return this.tok.t === 'sym' && this.tok.v === s;
  }
  private expectSym(s: string) {
    if (!this.isSym(s)) this.fail(`Expected "${s}", found ${this.found()}`);
    this.i++;
  }

  private atEnd() {
    return this.tok.t === 'end';
  }

  parse(): Expr {
    if (this.atEnd()) this.fail('The filter is empty');
    const e = this.orExpr();
    if (!this.atEnd()) this.fail(`Unexpected ${this.found()}; expected AND, OR or the end of the filter`);
    return e;
  }

  private orExpr(): Expr {
    let e = this.andExpr();
    while (this.eatWord('OR')) e = { k: 'or', a: e, b: this.andExpr() };
    return e;
  }

  private andExpr(): Expr {
    let e = this.notExpr();
    while (this.eatWord('AND')) e = { k: 'and', a: e, b: this.notExpr() };
    return e;
  }

  private notExpr(): Expr {
    if (this.eatWord('NOT')) return { k: 'not', a: this.notExpr() };
    return this.primary();
  }

  private primary(): Expr {
    if (this.isSym('(')) {
      if (++this.depth > MAX_DEPTH) this.fail(`Nested deeper than ${MAX_DEPTH} levels`);
      this.i++;
      const e = this.orExpr();
      this.expectSym(')');
      this.depth--;
      return e;
    }
    const word = this.tok.t === 'word' ? this.tok.v.toUpperCase() : '';
    if ((SPATIAL_FUNCTIONS as readonly string[]).includes(word)) {
      const pos = this.tok.pos;
      this.i++;
      this.expectSym('(');
      const a = this.operand();
      this.expectSym(',');
      const b = this.operand();
      this.expectSym(')');
      return { k: 'spatial', fn: word as SpatialFn, a, b, pos };
    }
    if ((word === 'TRUE' || word === 'FALSE') && !this.nextIsPredicateOperator()) {
      this.i++;
      return { k: 'literal', value: word === 'TRUE' };
    }
    return this.predicate();
  }

  private nextIsPredicateOperator() {
    const n = this.toks[this.i + 1];
    return (n.t === 'sym' && n.v !== '(' && n.v !== ')' && n.v !== ',') || (n.t === 'word' && ['LIKE', 'BETWEEN', 'IN', 'IS', 'NOT'].includes(n.v.toUpperCase()));
  }

  private predicate(): Expr {
    const pos = this.tok.pos;
    const a = this.operand();
    if (this.tok.t === 'sym' && ['=', '<>', '<', '>', '<=', '>='].includes(this.tok.v)) {
      const op = this.tok.v as CmpOp;
      this.i++;
      return { k: 'cmp', op, a, b: this.operand(), pos };
    }
    if (this.eatWord('IS')) {
      const not = this.eatWord('NOT');
      this.expectWord('NULL');
      return { k: 'isnull', not, a, pos };
    }
    const not = this.eatWord('NOT');
    if (this.eatWord('LIKE')) return { k: 'like', not, a, b: this.operand(), pos };
    if (this.eatWord('BETWEEN')) {
      const lo = this.operand();
      this.expectWord('AND');
      return { k: 'between', not, a, lo, hi: this.operand(), pos };
    }
    if (this.eatWord('IN')) {
      this.expectSym('(');
      const list = [this.operand()];
      while (this.isSym(',')) {
        this.i++;
        list.push(this.operand());
      }
      this.expectSym(')');
      return { k: 'in', not, a, list, pos };
    }
    return this.fail(`Expected a comparison (=, <>, <, >, <=, >=, LIKE, BETWEEN, IN or IS NULL), found ${this.found()}`);
  }

  operand(): Operand {
    const t = this.tok;
    if (t.t === 'str') {
      this.i++;
      return { k: 'str', value: t.v, pos: t.pos };
    }
    if (t.t === 'num') {
      this.i++;
      return { k: 'num', value: Number(t.v), pos: t.pos };
    }
    if (t.t === 'qword') {
      this.i++;
      return { k: 'prop', name: t.v, pos: t.pos };
    }
    if (t.t !== 'word') return this.fail(`Expected a property name or a value, found ${this.found()}`);
    const w = t.v.toUpperCase();
    if (w === 'TRUE' || w === 'FALSE') {
      this.i++;
      return { k: 'bool', value: w === 'TRUE', pos: t.pos };
    }
    if (w === 'DATE' || w === 'TIMESTAMP') {
      this.i++;
      this.expectSym('(');
      const s = this.tok;
      if (s.t !== 'str') this.fail(`${w} takes a quoted value, found ${this.found()}`);
      this.i++;
      this.expectSym(')');
      if (w === 'DATE' && !isDateText(s.v)) this.fail(`${JSON.stringify(s.v)} is not a date (YYYY-MM-DD)`, s.pos);
      if (w === 'TIMESTAMP' && !isTimestampText(s.v)) this.fail(`${JSON.stringify(s.v)} is not a timestamp (RFC 3339, e.g. 2024-05-01T10:00:00Z)`, s.pos);
      return { k: w === 'DATE' ? 'date' : 'timestamp', value: s.v, pos: t.pos };
    }
    if (w === 'CASEI') {
      this.i++;
      this.expectSym('(');
      const a = this.operand();
      this.expectSym(')');
      return { k: 'casei', a, pos: t.pos };
    }
    if (w === 'ACCENTI') this.fail('ACCENTI is not supported here');
    if (w === 'BBOX') return this.bbox();
    if (GEOMETRY_TYPES.includes(w)) {
      this.i++;
      return { k: 'geom', wkt: this.geometryBody(w), pos: t.pos };
    }
    if (KEYWORDS.has(w)) this.fail(`Expected a property name or a value, found the keyword ${w}`);
    this.i++;
    return { k: 'prop', name: t.v, pos: t.pos };
  }

  private number(): number {
    if (this.tok.t !== 'num') this.fail(`Expected a number, found ${this.found()}`);
    return Number(this.toks[this.i++].v);
  }

  private bbox(): Operand {
    const pos = this.tok.pos;
    this.i++;
    this.expectSym('(');
    const n = [this.number()];
    while (this.isSym(',')) {
      this.i++;
      n.push(this.number());
    }
    this.expectSym(')');
    if (n.length !== 4 && n.length !== 6) this.fail('BBOX takes 4 numbers (or 6 with heights)', pos);
    const [w, s, e, no] = n.length === 6 ? [n[0], n[1], n[3], n[4]] : n;
    if (w >= e || s >= no) this.fail('BBOX is inverted or empty: minx < maxx and miny < maxy', pos);
    return { k: 'geom', wkt: `POLYGON((${w} ${s},${e} ${s},${e} ${no},${w} ${no},${w} ${s}))`, pos };
  }

  /** One coordinate: 2 or 3 numbers (heights are dropped). */
  private coord(): string {
    const x = this.number();
    const y = this.number();
    if (this.tok.t === 'num') this.i++;
    return `${x} ${y}`;
  }

  private list<T>(item: () => T): T[] {
    this.expectSym('(');
    const out = [item()];
    while (this.isSym(',')) {
      this.i++;
      out.push(item());
    }
    this.expectSym(')');
    return out;
  }

  private pointText(): string {
    const pos = this.tok.pos;
    const pts = this.list(() => this.coord());
    if (pts.length !== 1) this.fail('A point has one position', pos);
    return pts[0];
  }

  private line(min: number, closed: boolean): string {
    const pos = this.tok.pos;
    const pts = this.list(() => this.coord());
    if (pts.length < min) this.fail(`Expected at least ${min} positions`, pos);
    if (closed && pts[0] !== pts[pts.length - 1]) this.fail('A polygon ring must end where it starts', pos);
    return `(${pts.join(',')})`;
  }

  private polygon(): string {
    return `(${this.list(() => this.line(4, true)).join(',')})`;
  }

  /** WKT after its type word (Z, M and ZM tags are accepted; heights are dropped). */
  private geometryBody(type: string): string {
    if (this.tok.t === 'word' && ['Z', 'M', 'ZM'].includes(this.tok.v.toUpperCase())) this.i++;
    switch (type) {
      case 'POINT':
        return `POINT(${this.pointText()})`;
      case 'LINESTRING':
        return `LINESTRING${this.line(2, false)}`;
      case 'POLYGON':
        return `POLYGON${this.polygon()}`;
      case 'MULTIPOINT':
        return `MULTIPOINT(${this.list(() => `(${this.isSym('(') ? this.pointText() : this.coord()})`).join(',')})`;
      case 'MULTILINESTRING':
        return `MULTILINESTRING(${this.list(() => this.line(2, false)).join(',')})`;
      case 'MULTIPOLYGON':
        return `MULTIPOLYGON(${this.list(() => this.polygon()).join(',')})`;
      default:
        return `GEOMETRYCOLLECTION(${this.list(() => {
          const w = this.tok.t === 'word' ? this.tok.v.toUpperCase() : '';
          if (!GEOMETRY_TYPES.includes(w)) this.fail(`Expected a geometry, found ${this.found()}`);
          this.i++;
          return this.geometryBody(w);
        }).join(',')})`;
    }
  }
}

/** Parse CQL2 text; 400 filter_unparsable with the position on any error. */
export function parseCql2(text: string): Expr {
  if (text.length > MAX_FILTER_LENGTH) throw new ApiError('filter_unparsable', { field: 'filter', detail: `The filter is longer than ${MAX_FILTER_LENGTH} characters.` });
  return new Parser(text, tokenize(text)).parse();
}
