// Where each record of a JSON feed sits in the text as published: the character offsets of every
// element of the array at a dotted path (the feed mapping's records_path), so a record can be
// cited by the very characters it was read from. Pure; the text must be valid JSON.

export interface Span {
  start: number;
  end: number;
}

const WS = new Set([' ', '\t', '\n', '\r']);

class Scanner {
  i = 0;
  constructor(readonly s: string) {}

  skip(): void {
    while (this.i < this.s.length && WS.has(this.s[this.i])) this.i++;
  }

  /** Past the string starting at i (a quote); returns its decoded value. */
  string(): string {
    const start = this.i;
    this.i++;
    while (this.s[this.i] !== '"') {
      if (this.i >= this.s.length) throw new Error(`unterminated string at ${start}`);
      this.i += this.s[this.i] === '\\' ? 2 : 1;
    }
    this.i++;
    return JSON.parse(this.s.slice(start, this.i)) as string;
  }

  /** Past one value; with `want` (the remaining path), the spans of the array it leads to. */
  value(want: string[] | null): Span[] | null {
    this.skip();
    const c = this.s[this.i];
    if (c === '{') return this.object(want);
    if (c === '[') return this.array(want !== null && want.length === 0);
    if (c === '"') {
      this.string();
      return null;
    }
    const m = /^(?:true|false|null|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(this.s.slice(this.i, this.i + 64));
    if (!m) throw new Error(`not JSON at ${this.i}`);
    this.i += m[0].length;
    return null;
  }

  object(want: string[] | null): Span[] | null {
    let found: Span[] | null = null;
    this.i++;
    this.skip();
    if (this.s[this.i] === '}') {
      this.i++;
      return null;
    }
    for (;;) {
      this.skip();
      const key = this.string();
      this.skip();
      this.i++; // the colon
      const r = this.value(want && want.length > 0 && want[0] === key ? want.slice(1) : null);
      if (r) found = r;
      this.skip();
      if (this.s[this.i++] === '}') return found;
    }
  }

  array(collect: boolean): Span[] | null {
    const spans: Span[] = [];
    this.i++;
    this.skip();
    if (this.s[this.i] === ']') {
      this.i++;
      return collect ? spans : null;
    }
    for (;;) {
      this.skip();
      const start = this.i;
      this.value(null);
      spans.push({ start, end: this.i });
      this.skip();
      if (this.s[this.i++] === ']') return collect ? spans : null;
    }
  }
}

/** The spans of the elements of the array at `path` ("" for the document itself), or null when none is there. */
export function arraySpans(text: string, path: string): Span[] | null {
  return new Scanner(text).value(path ? path.split('.') : []);
}
