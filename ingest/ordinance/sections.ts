// Headings into the section tree: refs from the code's own numbering ("3.1.16", "Section 4"),
// or the heading itself when it has none (a glossary term, "Table 9.1.1"); parents by level.
import { parseToken } from './numbering.ts';
import type { ParseIssue, SectionRecord } from '../types.ts';
import type { HeadingBlock } from './markdown.ts';
import { type Citer, type Span, trimSpan } from './text.ts';

export interface SectionNode {
  record: SectionRecord;
  level: number;
  start: number; // the section's first offset (its anchor)
  end: number; // where the next section starts
  title: Span;
  parent: SectionNode | null;
}

const NUMBERED = /^(?:(?:section|sec\.|article|art\.|chapter|ch\.|§)\s*)?(\d+[A-Z]?(?:\.\d+[A-Za-z]?)*)(?:\.(?=\s|$))?(?:\s+|$)(.*)$/i;

/** "3.1.16" and "Use Provisions" from "3.1.16 Use Provisions". */
export function splitHeading(title: string): { ref: string; heading: string | null } {
  const m = NUMBERED.exec(title);
  if (m && !/^(?:article|art\.|chapter|ch\.)/i.test(title)) return { ref: m[1], heading: m[2].trim() || null };
  // a keyword other than Section keeps its word, as the numbering of headings does ("ARTICLE III." → "Article III")
  const tok = parseToken(title);
  if (tok?.keyword && tok.keyword !== 'Section') return { ref: `${tok.keyword} ${tok.number}`, heading: title.slice(tok.rest).replace(/\.\s*$/, '').trim() || null };
  if (m) return { ref: m[1], heading: m[2].trim() || null };
  return { ref: title, heading: title };
}

export function buildSections(text: string, headings: HeadingBlock[], citer: Citer, issues: ParseIssue[]): SectionNode[] {
  // a lone level-1 heading opening the text is the document's title, not a section
  const h1 = headings.filter((h) => h.level === 1);
  const body = h1.length === 1 && headings[0]?.level === 1 ? headings.slice(1) : headings;
  const nodes: SectionNode[] = [];
  const stack: SectionNode[] = [];
  const seen = new Map<string, number>();
  body.forEach((h, i) => {
    const titleText = text.slice(h.title.start, h.title.end);
    let { ref, heading } = h.ref !== undefined ? { ref: h.ref, heading: h.heading ?? null } : splitHeading(titleText);
    const n = (seen.get(ref) ?? 0) + 1;
    seen.set(ref, n);
    if (n > 1) {
      issues.push({ severity: 'warning', code: 'section_ref_duplicate', detail: `section ref "${ref}" appears ${n} times; this one is kept as "${ref} (${n})"`, locator: { start: h.title.start, end: h.title.end } });
      ref = `${ref} (${n})`;
    }
    // a term takes the level below the nearest numbered (non-term) section above it
    let level = h.level;
    if (level === 0) {
      const host = [...stack].reverse().find((s) => /^\d/.test(s.record.ref));
      level = Math.min(6, (host?.level ?? 1) + 1);
    }
    while (stack.length && stack[stack.length - 1].level >= level) stack.pop();
    const parent = stack[stack.length - 1] ?? null;
    const end = body[i + 1]?.anchor ?? text.length;
    const own = trimSpan(text, h.line.end, end);
    const record: SectionRecord = {
      ref,
      heading,
      parent_ref: parent?.record.ref ?? null,
      depth: (parent ? parent.record.depth : 0) + 1,
      ordinal: nodes.length + 1,
      body: text.slice(own.start, own.end),
      citation: citer.cite(h.title, { section: ref, heading }, ref),
    };
    const node: SectionNode = { record, level, start: h.anchor, end, title: h.title, parent };
    nodes.push(node);
    stack.push(node);
  });
  return nodes;
}

/** The section holding an offset (sections are in text order). */
export function sectionAt(sections: SectionNode[], offset: number): SectionNode | null {
  let lo = 0;
  let hi = sections.length - 1;
  let found: SectionNode | null = null;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (sections[mid].start <= offset) {
      found = sections[mid];
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

export function* ancestors(node: SectionNode | null): Generator<SectionNode> {
  for (let n = node; n; n = n.parent) yield n;
}
