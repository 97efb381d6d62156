// The CQL2 text tokenizer: words, quoted names, strings, numbers and symbols, each with its
// character offset, and the one error every parse failure becomes (400 with the position).
import { ApiError } from '../core/errors.ts';

export interface Token {
  t: 'word' | 'qword' | 'str' | 'num' | 'sym' | 'end';
  v: string;
  pos: number;
}

export const MAX_FILTER_LENGTH = 20_000;

/** 400 filter_unparsable at a 0-based offset, reported counted from 1. */
export function filterError(text: string, pos: number, why: string): ApiError {
  const near = text.slice(Math.max(0, pos - 10), pos + 15);
  return new ApiError('filter_unparsable', { field: 'filter', detail: `${why} at position ${pos + 1} (near ${JSON.stringify(near)}).` });
}

export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (/\s/.test(c)) {
      i++;
    } else if (c === "'") {
      let v = '';
      let j = i + 1;
      for (;;) {
        if (j >= text.length) throw filterError(text, i, 'Unterminated string');
        if (text[j] === "'") {
          if (text[j + 1] === "'") {
            v += "'";
            j += 2;
            continue;
          }
          break;
        }
        v += text[j++];
      }
      out.push({ t: 'str', v, pos: i });
      i = j + 1;
    } else if (c === '"') {
      const j = text.indexOf('"', i + 1);
      if (j < 0) throw filterError(text, i, 'Unterminated quoted property name');
      out.push({ t: 'qword', v: text.slice(i + 1, j), pos: i });
      i = j + 1;
    } else if (/[0-9.+-]/.test(c) && /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?/.test(text.slice(i))) {
      const m = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?/.exec(text.slice(i))!;
      out.push({ t: 'num', v: m[0], pos: i });
      i += m[0].length;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_.:]*/.exec(text.slice(i))!;
      out.push({ t: 'word', v: m[0], pos: i });
      i += m[0].length;
    } else {
      const two = text.slice(i, i + 2);
      if (['<>', '<=', '>='].includes(two)) {
        out.push({ t: 'sym', v: two, pos: i });
        i += 2;
      } else if ('=<>(),'.includes(c)) {
        out.push({ t: 'sym', v: c, pos: i });
        i++;
      } else {
        throw filterError(text, i, `Unexpected character ${JSON.stringify(c)}`);
      }
    }
  }
  out.push({ t: 'end', v: '', pos: text.length });
  return out;
}

export function isDateText(s: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

export function isTimestampText(s: string): boolean {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(s) && !Number.isNaN(Date.parse(s)) && isDateText(s.slice(0, 10));
}
