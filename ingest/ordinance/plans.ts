// The plans a zoning code names as governing it (GET /jurisdiction/{id}/plan): read from section
// texts alone. A plan is a capitalized name ending in "Plan" (the Comprehensive Plan of the City of
// Somerville, the 2003 Union Square Master Plan) or a one-word name (SomerVision), named where the
// code implements it, requires consistency with it, says what constitutes it, or defines it (a
// section or definition headed with its name). Procedural plans (Site Plan, Mobility Management
// Plan) and a development's master plan ("a Master Plan", "Master Plan Standards") are not plans
// the code follows. Every passage is a sentence of a section's text, verbatim.

export interface SectionText {
  ref: string;
  heading: string | null;
  body: string;
  citation_id: string | null;
}

export interface PlanPassage {
  text: string;
  section_ref: string;
  citation_id: string | null;
}

export interface PlanRead {
  name: string;
  /** other names the code gives it ("ASQ Plan") */
  alias: string[];
  /** the sentences defining it (a section or definition headed with its name) */
  definition: PlanPassage[];
  /** every sentence naming it as something the code implements, follows or is consistent with */
  mention: PlanPassage[];
  /** the sentences requiring consistency (or conformance) with it */
  consistency: PlanPassage[];
  /** a date the code says it was adopted on, with the sentence saying so */
  adopted: { date: string; passage: PlanPassage } | null;
  /** the bodies the code says adopted or approved it */
  adopted_by: Array<{ body: string; passage: PlanPassage }>;
}

/** Sentences of a text, verbatim (split at a period before a capital or a list marker), list markers dropped. */
export function sentencesOf(body: string): string[] {
  return body
    .split('\n')
    .flatMap((line) => line.split(/(?<=[.])\s+(?=[A-Z(]|(?:[ivxl]{1,5}|[a-z]|\d{1,3})[.)]{1,2}\s)|\s+(?=(?:[ivxl]{1,5}|[a-h])\.\s+[A-Z])/))
    .map((s) => s.replace(/^\s*(?:\(?(?:\d{1,3}|[a-z]{1,4})[.)]{1,2}\)?\s+)+/i, '').replace(/\s+(?:[ivxl]{1,5}|[a-z])[.)]{1,2}$/, '').trim())
    .filter((s) => s.split(/\s+/).length >= 3);
}

const WORD = `(?:\\d{4}|[A-Z][\\w'’&-]*)`;
/** "X … Plan" capitalized (with "of the City of Y"), or "comprehensive plan" in any case. */
const NAMED = new RegExp(`((?:${WORD}\\s+){0,5}Plan)\\b(?:\\s+\\(([A-Z][\\w&-]*\\s+Plan)\\))?|\\b(comprehensive plan)\\b`, 'g');
/** A one-word name such as SomerVision: a capital inside the word. */
const COINED = /\b([A-Z][a-z]+[A-Z][A-Za-z]+)(?=[’']s\b|\b)/g;
/** Words before "Plan" that make it a step of a permit, not a plan the code follows. */
const PROCEDURAL = /\b(Site|Subdivision|Management|Landscape|Landscaping|Parking|Planting|Phasing|Lighting|Sign|Signage|Preliminary|Development|Construction|Grading|Erosion|Drainage|Operations?|Security|Safety|Plot)\s+(?:\w+\s+)?Plan$/;
/** Words that open a name but are not part of it. */
const LEADING = /^(?:(?:The|This|That|Such|Any|Each|An?|To|Of|In|With|By|For|And|Or|Under|Per|Implement|Approved|Submitted|All)\s+)+/;
const GOVERNS = /\b(implement(?:s|ed|ing)?\b|consisten(?:t|cy) with|in accordance with|conform\w* (?:to|with)|complies? with|compliance with|constitutes?|called for by|recommendations of|objectives (?:and policies )?of|guided by|pursuant to)\b/i;
const CONSISTENT = /\b(consisten(?:t|cy) with|conform\w* (?:to|with)|in conformance with|complies? with|compliance with)\b/i;
const MONTH = '(?:January|February|March|April|May|June|July|August|September|October|November|December)';
const ADOPTED_ON = new RegExp(`\\badopted\\b[^.;]{0,80}?\\b(?:on|in)\\s+(${MONTH}\\s+\\d{1,2},\\s+\\d{4}|${MONTH}\\s+\\d{4}|\\d{4}-\\d{2}-\\d{2})`);
const ADOPTED_BY = /\b(?:adopted|approved)\s+by\s+the\s+((?:[A-Z][\w'’&-]*\s+){0,4}(?:Board|Commission|Council|Committee|Meeting))\b/;

/** The canonical name: leading articles dropped, "of the City of …" dropped, comprehensive plan capitalized. */
function canonical(raw: string): string | null {
  const name = raw.replace(LEADING, '').trim();
  if (/^comprehensive plan$/i.test(name)) return 'Comprehensive Plan';
  if (!/\sPlan$/.test(name) || PROCEDURAL.test(name)) return null;
  // a development's master plan ("Master Plan Standards", "a Master Plan") names no plan of the town
  if (name === 'Master Plan') return null;
  return name;
}

function namesIn(sentence: string): Array<{ name: string; alias: string | null }> {
  const out: Array<{ name: string; alias: string | null }> = [];
  for (const m of sentence.matchAll(NAMED)) {
    const after = sentence.slice((m.index ?? 0) + m[0].length);
    if (/^\s+(Special Permit|Standards|Approval|Review|Amendment)\b/.test(after)) continue;
    // "a Revitalization Plan" is any such plan, not one the code names
    if (/\b(a|an|any|each|every)\s+$/i.test(sentence.slice(0, m.index ?? 0))) continue;
    // "the Master Plan of the Town of …" is the town's own, as a development's master plan is not
    const own = /^\s+of\s+the\s+(City|Town|Village|Borough|Township|County)\s+of\b/.test(after) && /^(?:The\s+)?Master Plan$/.test(m[1] ?? '');
    const name = own ? 'Master Plan' : canonical(m[1] ?? m[3]);
    if (name) out.push({ name, alias: m[2] ?? null });
  }
  // a coined name counts where the code follows it: "recommendations of SomerVision", "called for by SomerVision"
  for (const m of sentence.matchAll(COINED)) if (/\b(of|by)\s+$/.test(sentence.slice(0, m.index ?? 0))) out.push({ name: m[1], alias: null });
  return out;
}

/** The plans the sections name as governing the code, in the order first named. */
export function plansNamed(sections: SectionText[]): PlanRead[] {
  const plans = new Map<string, PlanRead>();
  const aliasOf = new Map<string, string>();
  const plan = (name: string): PlanRead => {
    const key = aliasOf.get(name) ?? name;
    let p = plans.get(key);
    if (!p) {
      p = { name: key, alias: [], definition: [], mention: [], consistency: [], adopted: null, adopted_by: [] };
      plans.set(key, p);
    }
    return p;
  };
  const said = sections.map((s) => ({ s, sentences: sentencesOf(s.body) }));
  const at = (s: SectionText, text: string): PlanPassage => ({ text, section_ref: s.ref, citation_id: s.citation_id });
  const facts = (p: PlanRead, passage: PlanPassage) => {
    if (!p.adopted) {
      const d = ADOPTED_ON.exec(passage.text);
      if (d) p.adopted = { date: d[1], passage };
    }
    const by = ADOPTED_BY.exec(passage.text);
    if (by && !p.adopted_by.some((b) => b.body === by[1])) p.adopted_by.push({ body: by[1], passage });
  };
  // definitions first: a section, or a definition within a section, headed with a plan's name
  for (const { s } of said) {
    const lines = s.body.split('\n').map((l) => l.trim());
    const heads: Array<{ head: string; text: string[] }> = [];
    if (s.heading) heads.push({ head: s.heading.trim(), text: sentencesOf(s.body) });
    for (const [i, line] of lines.entries()) {
      const next = lines.slice(i + 1).find((l) => l !== '');
      if (next && /^[A-Z][\w'’ &-]*\sPlan$/.test(line)) heads.push({ head: line, text: sentencesOf(next) });
    }
    for (const { head, text } of heads) {
      const name = /^[A-Z][\w'’ &-]*$/.test(head) ? canonical(head) : null;
      if (!name || text.length === 0) continue;
      const p = plan(name);
      for (const t of text) {
        const passage = at(s, t);
        p.definition.push(passage);
        facts(p, passage);
      }
    }
  }
  // aliases first ("the Assembly Square Plan (ASQ Plan)"), so a sentence naming either counts for one plan
  const named = said.map(({ s, sentences }) => ({ s, found: sentences.filter((t) => GOVERNS.test(t)).map((text) => ({ text, names: namesIn(text) })) }));
  for (const { found } of named) for (const { names } of found) for (const { name, alias } of names) if (alias && alias !== name && !aliasOf.has(alias)) aliasOf.set(alias, name);
  for (const [alias, name] of aliasOf) {
    const p = plan(name);
    if (!p.alias.includes(alias)) p.alias.push(alias);
    const defined = plans.get(alias);
    if (defined && defined !== p) {
      p.definition.push(...defined.definition);
      plans.delete(alias);
    }
  }
  for (const { s, found } of named) {
    for (const { text, names } of found) {
      for (const { name } of names) {
        const p = plan(name);
        if (p.mention.some((x) => x.text === text && x.section_ref === s.ref)) continue;
        const passage = at(s, text);
        p.mention.push(passage);
        if (CONSISTENT.test(text)) p.consistency.push(passage);
        facts(p, passage);
      }
    }
  }
  // a plan only defined (never named as governing) is a term of the code, not a plan it follows
  return [...plans.values()].filter((p) => p.mention.length > 0);
}
