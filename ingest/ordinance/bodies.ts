// Boards, commissions, councils and committees a code's text names, read from its sections
// (pure: sections in, bodies out). A body is named as a proper noun after "the": capitalized
// words ending in Board, Commission, Council, Committee or Authority, with an "of/on/for …"
// complement where one follows ("the Zoning Board of Appeals", "the Board of Health"). Each is
// cited by the sentence that establishes it, else by a sentence of the section headed with its
// name, else by its first mention; the quote is a verbatim slice of the section's text.

export interface CodeSection {
  ref: string;
  heading: string | null;
  body: string;
}

/** A jurisdiction a body's name may begin with ("Somerville Housing Authority"). */
export interface Place {
  id: string;
  name: string;
  /** its own type word ("City Council" in a city's code is the city's) */
  type?: string;
}

export interface NamedBody<S extends CodeSection = CodeSection> {
  name: string;
  /** other printings folded into it ("Zoning Board", "Somerville Planning Board") */
  also_named: string[];
  /** the jurisdiction the text makes it: by establishing it, or by a name that begins with one */
  jurisdiction: string | null;
  /** established: a sentence establishes it; section: a section is headed with its name; name: its name begins with a jurisdiction's name or type */
  basis: 'established' | 'section' | 'name' | null;
  mention_count: number;
  section_count: number;
  /** the section cited, as given */
  section: S;
  /** the sentence of its body cited, verbatim */
  quote: string;
}

const HEADS = ['Board', 'Commission', 'Council', 'Committee', 'Authority'];
const WORD = /^(?:[A-Z][\p{L}\p{N}'’-]*|(?:[A-Z]\.){2,})$/u;
const JOINS = new Set(['&', 'and']);
const ABBREVIATIONS = new Set(['sec', 'no', 'ch', 'art', 'st', 'inc', 'co', 'corp', 'mr', 'ms', 'mrs', 'dr', 'vs', 'etc', 'approx']);
const MARKER = /^(?:(?:\d{1,3}|[a-z]{1,2}|[ivxlc]{1,6})(?:\.|\)\.?)\s+)+/i;
const MAX_QUOTE = 400;

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A printed name as a pattern: either apostrophe, any run of spaces or line breaks between words. */
const pattern = (p: string) => escapeRe(p).replace(/['’]/g, "['’]").replace(/\s+/g, '\\s+');
const key = (s: string) => s.toLowerCase().replace(/’/g, "'").replace(/\s+/g, ' ');

/** The words of text[from, to). */
function tokens(text: string, from: number, to: number): string[] {
  const out: string[] = [];
  const re = /\S+/g;
  re.lastIndex = from;
  for (let m = re.exec(text); m && m.index < to; m = re.exec(text)) out.push(m[0]);
  return out;
}

/** A token's word, and whether the name stops after it (a possessive or punctuation follows). */
function word(t: string): { w: string; stop: boolean; t: string; punct: boolean } {
  if (/^(?:[A-Z]\.){2,}$/.test(t)) return { w: t, stop: false, t, punct: false }; // U.S.
  const m = /^(.*?)((?:'s|’s|’|')?)([.,;:)"”]*)$/u.exec(t)!;
  return { w: m[1], stop: Boolean(m[2] || m[3]), t, punct: Boolean(m[3]) };
}

/** The names a text gives after "the", printed as given, each with its form before any complement. */
function namesIn(text: string): Array<{ name: string; base: string }> {
  const out: Array<{ name: string; base: string }> = [];
  const the = /\bthe\s+/gi;
  for (let m = the.exec(text); m; m = the.exec(text)) {
    const at = m.index + m[0].length;
    if (!/[A-Z]/.test(text[at] ?? '')) continue;
    const toks = tokens(text, at, at + 200).map(word);
    const mods: string[] = [];
    let head = -1;
    for (let i = 0; i < toks.length && i < 10; i++) {
      const { w, stop } = toks[i];
      if (HEADS.includes(w)) {
        if (mods.length || /^(of|on|for)$/.test(toks[i + 1]?.w ?? '')) head = i;
        break;
      }
      // a possessive word inside a name: "the Veteran’s Commission"
      if (stop && !toks[i].punct && WORD.test(w) && HEADS.includes(toks[i + 1]?.w ?? '')) {
        mods.push(toks[i].t);
        continue;
      }
      if (stop || !(WORD.test(w) || (JOINS.has(w) && mods.length))) break;
      mods.push(w);
    }
    if (head < 0 || JOINS.has(mods[mods.length - 1] ?? '')) continue;
    const base = [...mods, toks[head].w].join(' ');
    // a complement: of/on/for and capitalized words, joined by and/& unless what follows names another body
    const comp: string[] = [];
    const prep = toks[head + 1]?.w;
    if (!toks[head].stop && prep && /^(of|on|for)$/.test(prep) && !toks[head + 1].stop) {
      for (let k = head + 2; k < toks.length && comp.length < 6; k++) {
        const { w, stop } = toks[k];
        if (JOINS.has(w) && comp.length && !stop) {
          const next: string[] = [];
          for (let n = k + 1; n < toks.length && WORD.test(toks[n].w); n++) {
            next.push(toks[n].w);
            if (toks[n].stop) break;
          }
          if (!next.length || next.some((x) => HEADS.includes(x))) break;
          comp.push(w);
          continue;
        }
        if (!WORD.test(w) || HEADS.includes(w)) break;
        comp.push(w);
        if (stop) break;
      }
      while (comp.length && JOINS.has(comp[comp.length - 1])) comp.pop();
    }
    const name = comp.length ? `${base} ${prep} ${comp.join(' ')}` : base;
    if (name.includes(' ')) out.push({ name, base });
  }
  return out;
}

/** Where sentences (and list items) begin and end: [start, end) spans over the text. */
function spans(text: string): Array<[number, number]> {
  const cuts: number[] = [0];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    // a line break ends a sentence only after a blank line or sentence punctuation: a printed
    // page's lines run on ("… shall mean the\nagency of the City")
    if (c === '\n') {
      const next = text.slice(i + 1, i + 12);
      if (text[i + 1] === '\n' || /[.;:!?]\s*$/.test(text.slice(Math.max(0, i - 3), i)) || /^(?:[ivxlc]{1,6}|[a-z]|\d{1,3})(?:\.|\)\.?)\s/i.test(next)) cuts.push(i + 1);
    } else if (/[.;!?]/.test(c) && /\s/.test(text[i + 1] ?? ' ')) {
      const word = /(\S*)$/.exec(text.slice(Math.max(0, i - 40), i))![1];
      const abbreviated = c === '.' && (/^(?:[A-Za-z]\.)*[A-Za-z]$/.test(word) || ABBREVIATIONS.has(word.toLowerCase().replace(/^\(/, '')));
      if (!abbreviated) cuts.push(i + 1);
    } else if (/\s/.test(c)) {
      // a list item begins: a lower-case letter or numeral before words, anywhere ("Establishment i. The …", never "c. 41"), a number after a sentence
      const next = text.slice(i + 1, i + 12);
      if (/^(?:[ivxlc]{1,6}|[a-z])(?:\.|\)\.?)\s+\D/.test(next) || (/^\d{1,3}(?:\.|\)\.?)\s/.test(next) && cuts[cuts.length - 1] === i)) cuts.push(i + 1);
    }
  }
  cuts.push(text.length);
  const out: Array<[number, number]> = [];
  for (let k = 0; k < cuts.length - 1; k++) if (cuts[k + 1] > cuts[k]) out.push([cuts[k], cuts[k + 1]]);
  return out;
}

/** The sentence around [at, at + length), list markers and spaces trimmed, as a verbatim slice. */
export function sentenceAt(text: string, at: number, length: number): string {
  const [s, e] = spans(text).find(([a, b]) => a <= at && at < b) ?? [0, text.length];
  let start = s + (/^\s*/.exec(text.slice(s, at))?.[0].length ?? 0);
  let end = e;
  const lead = MARKER.exec(text.slice(start, at));
  if (lead) start += lead[0].length;
  if (end - start > MAX_QUOTE) {
    start = Math.max(start, text.lastIndexOf(' ', Math.max(start, at - 150)) + 1);
    end = Math.min(end, (text.indexOf(' ', at + length + 200) + 1 || end + 1) - 1);
  }
  const slice = text.slice(start, end);
  return slice.slice(slice.length - slice.trimStart().length).trimEnd();
}

const establishing = (name: string) =>
  new RegExp(
    `\\b${pattern(name)}\\s+(?:is|are|shall\\s+be)\\s+(?:hereby\\s+)?(?:established|created|constituted)\\b|\\b(?:establish(?:es|ed)?|creat(?:es|ed)|constitut(?:es|ed))\\s+(?:(?:a|an|the)\\s+)?${pattern(name)}\\b`,
    'i',
  );

/** The bodies the sections name, established ones first, then by how often they are named. */
export function namedBodies<S extends CodeSection>(sections: S[], places: Place[] = []): NamedBody<S>[] {
  // printed forms by folded key, with how often each is given after "the"
  const forms = new Map<string, Map<string, number>>();
  const bases = new Map<string, string>();
  for (const s of sections) {
    for (const n of namesIn(s.body)) {
      const k = key(n.name);
      const f = forms.get(k) ?? new Map<string, number>();
      f.set(n.name, (f.get(n.name) ?? 0) + 1);
      forms.set(k, f);
      bases.set(k, key(n.base));
    }
  }
  const count = (k: string) => [...(forms.get(k)?.values() ?? [])].reduce((a, b) => a + b, 0);
  // one body under several printings: without its complement ("the Zoning Board"), with the
  // jurisdiction's name before it; a complement rarer than the name without it was no part of
  // the name ("the City Council on December 12"), nor a body named with another ("the Mayor and
  // City Council"): those printings are dropped, their mentions counted under the body's name
  const into = new Map<string, string>();
  const drop = new Set<string>();
  // what may stand before a body's own name: a jurisdiction's name ("Somerville", "Ray County"
  // or "Ray"), and the jurisdiction's own type word ("County Planning and Zoning Commission")
  const prefixes = places.flatMap((p, i) => {
    const name = key(p.name);
    const type = p.type ? key(p.type) : null;
    return [name, ...(type && name.endsWith(` ${type}`) ? [name.slice(0, -type.length - 1)] : []), ...(i === 0 && type ? [type] : [])];
  });
  const unprefixed = (k: string) => {
    for (const p of prefixes) {
      const rest = k.startsWith(`${p} `) ? k.slice(p.length + 1) : null;
      if (rest && forms.has(rest)) return rest;
    }
    return null;
  };
  for (const k of forms.keys()) {
    const b = bases.get(k)!;
    const plain = forms.has(b) ? b : unprefixed(b);
    if (b !== k && plain) {
      if (count(k) > count(plain)) into.set(plain, k);
      else drop.add(k);
    }
    const rest = unprefixed(k);
    if (rest) into.set(k, rest);
    const last = / (?:and|&) (.+)$/.exec(b);
    if (last && forms.has(last[1])) drop.add(k);
  }
  // a shorter printing of one longer name ("the Board of Appeals", "the Zoning Board of Appeals"),
  // no more often given than it, unless a jurisdiction's name makes the difference
  for (const k of forms.keys()) {
    if (into.has(k) || drop.has(k)) continue;
    const longer = [...forms.keys()].filter((l) => l !== k && l.endsWith(` ${k}`) && !drop.has(l) && unprefixed(l) !== k);
    if (longer.length === 1 && count(k) <= count(longer[0])) into.set(k, longer[0]);
  }
  const root = (k: string, seen = new Set<string>()): string => {
    const next = into.get(k);
    if (!next || drop.has(next) || seen.has(next)) return k;
    seen.add(k);
    return root(next, seen);
  };
  const groups = new Map<string, string[]>();
  for (const k of forms.keys()) if (!drop.has(k)) groups.set(root(k), [...(groups.get(root(k)) ?? []), k]);

  type Hit = { s: S; at: number; len: number };
  interface Group { name: string; all: string[]; establishes: RegExp[]; mentions: number; sections: number; first?: Hit; headed?: Hit; established?: Hit }
  const byForm = new Map<string, Group>();
  const list: Group[] = [];
  for (const [k, members] of groups) {
    const printed = members.flatMap((m) => [...forms.get(m)!.entries()]).sort((x, y) => y[1] - x[1]);
    const all = [...new Set(printed.map(([p]) => p))];
    const g: Group = { name: [...forms.get(k)!.entries()].sort((x, y) => y[1] - x[1])[0][0], all, establishes: all.map(establishing), mentions: 0, sections: 0 };
    list.push(g);
    for (const p of all) byForm.set(key(p), g);
  }
  if (!list.length) return [];
  // one pass over the text: every printing of every body, the longest first
  const printings = list.flatMap((g) => g.all).sort((x, y) => y.length - x.length);
  const find = new RegExp(`\\b(?:${printings.map(pattern).join('|')})\\b`, 'gi');
  for (const s of sections) {
    const seen = new Set<Group>();
    for (const h of s.body.matchAll(find)) {
      const g = byForm.get(key(h[0]))!;
      g.mentions++;
      const hit = { s, at: h.index!, len: h[0].length };
      if (!seen.has(g)) {
        seen.add(g);
        g.sections++;
        if (!g.headed && s.heading && g.all.some((p) => key(s.heading!).replace(/^[\d.]+\s+/, '') === key(p))) g.headed = hit;
        if (!g.established) {
          const m = g.establishes.map((re) => re.exec(s.body)).find(Boolean);
          if (m) g.established = { s, at: m.index, len: m[0].length };
        }
      }
      // a mention cited is a name given after "the" in the section's running text
      if (!g.first && /^[A-Z]/.test(h[0]) && /\bthe\s+$/i.test(s.body.slice(Math.max(0, h.index! - 8), h.index!))) g.first = hit;
    }
  }
  const own = places[0];
  const out: NamedBody<S>[] = [];
  for (const g of list) {
    const cited = g.established ?? g.headed ?? g.first;
    if (!cited) continue;
    const prefixed = places.find((p) => g.all.some((n) => key(n).startsWith(`${key(p.name)} `)));
    const typed = own?.type && g.all.some((n) => key(n).startsWith(`${key(own.type!)} `)) ? own : undefined;
    const basis = g.established ? 'established' : prefixed && prefixed !== own ? 'name' : g.headed ? 'section' : prefixed || typed ? 'name' : null;
    const whose = basis === 'established' || basis === 'section' ? own : (prefixed ?? typed);
    out.push({
      name: g.name,
      also_named: g.all.filter((p) => p !== g.name),
      jurisdiction: whose?.id ?? null,
      basis,
      mention_count: g.mentions,
      section_count: g.sections,
      section: cited.s,
      quote: sentenceAt(cited.s.body, cited.at, cited.len),
    });
  }
  const rank = (b: NamedBody<S>) => ['established', 'section', 'name'].indexOf(b.basis ?? '') >>> 0;
  return out.sort((a, b) => rank(a) - rank(b) || b.mention_count - a.mention_count || a.name.localeCompare(b.name));
}
