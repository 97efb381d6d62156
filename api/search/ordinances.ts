// Ordinance and moratorium items of the searches across towns: rows of the collections in
// store/search shaped as answers, with their citations and what `include` asks, read for the
// page's rows only.

import { normalizeLabel } from '../../ingest/labels.ts';
import type { Queryable } from '../../store/db.ts';
import { citationsByIds } from '../../store/evidence.ts';
import { changedFacts, instructionsOf, ordinanceEvents, ordinanceLinks } from '../../store/search/ordinance.ts';
import type { SearchTimes } from '../../store/search/when.ts';
import { eventItem } from '../changes/feed.ts';
import { byKnown, datesOf, jurisdictionRef, moratoriumStatusOn, nextDay, ordinanceStatusOn, type Row, statusRuns } from './items.ts';

export const ORDINANCE_INCLUDES = ['permission', 'control', 'notice'] as const;

/** An ordinance on its date (the last day asked), with segment[] over an interval. */
export function ordinanceItem(r: Row, t: SearchTimes) {
  const { from, to } = datesOf(t, r.jurisdiction_id);
  const status = ordinanceStatusOn(r, to);
  const adopted = status === 'adopted';
  return {
    id: r.id,
    jurisdiction: jurisdictionRef(r),
    number: r.number,
    title: r.title,
    kind: r.kind,
    status,
    subject: r.subject ?? [],
    introduced_on: r.introduced_on,
    adopted_on: adopted ? r.adopted_listed : null,
    effective_from: adopted ? r.effective_listed : null,
    url: r.detail?.href ?? null,
    href: `/ordinance/${r.id}`,
    citation: { id: r.citation_id } as Row | null,
    ...(t.interval ? { segment: statusRuns(from, to, [r.introduced_on, r.adopted_listed], (d) => ordinanceStatusOn(r, d)) } : {}),
  };
}

export type OrdinanceItem = ReturnType<typeof ordinanceItem> & Row;

/** Citations, linked moratoriums, whether the own text was read, and the includes asked, for a page. */
export async function decorateOrdinances(db: Queryable, items: OrdinanceItem[], t: SearchTimes, include: string[], instructions = false) {
  if (items.length === 0) return;
  const cites = await citationsByIds(db, items.map((i) => i.citation?.id));
  for (const [known, group] of byKnown(t, items, (i) => i.jurisdiction.id)) {
    const ids = group.map((i) => i.id);
    const links = await ordinanceLinks(db, ids, known);
    const events = include.length ? await ordinanceEvents(db, ids, known) : [];
    const facts = {
      control: include.includes('control') ? await changedFacts(db, 'control', events.filter((e) => e.subject?.type === 'control'), known) : new Map<string, Row>(),
      permission: include.includes('permission') ? await changedFacts(db, 'permission', events.filter((e) => e.subject?.type === 'permission'), known) : new Map<string, Row>(),
    };
    const steps = instructions ? await instructionsOf(db, ids, known) : [];
    const more = await citationsByIds(db, [...facts.control.values(), ...facts.permission.values(), ...steps].map((f) => f.citation_id));
    for (const i of group) {
      const text = links.text.get(i.id);
      i.moratorium = links.moratorium.get(i.id) ?? [];
      i.text = text ? { held: true, version: text.version, instructions: text.instructions, read_at: text.read_at } : { held: false };
      const mine = events.filter((e) => e.ordinance_id === i.id);
      for (const kind of ['control', 'permission'] as const) {
        if (!include.includes(kind)) continue;
        const byFact = new Map<string, Row>();
        for (const e of mine) {
          const f = facts[kind].get(e.id);
          if (!f) continue;
          const { event_id: _e, citation_id, district_id, district_code, ...fact } = f;
          const change = { event: e.id, field_path: e.field_path, previous: e.previous, current: e.current, effective_date: e.effective_date };
          const held = byFact.get(f.id);
          if (held) held.change.push(change);
          else byFact.set(f.id, { id: fact.id, district: { id: district_id, code: district_code }, ...fact, citation: more.get(citation_id) ?? { id: citation_id }, change: [change] });
        }
        i[kind] = [...byFact.values()];
      }
      if (include.includes('notice')) i.notice = mine.map(eventItem);
      if (instructions) {
        i.instruction = steps
          .filter((s) => s.ordinance_id === i.id)
          .map(({ ordinance_id: _o, citation_id, source_version_id, ...s }) => ({ ...s, version: source_version_id, citation: more.get(citation_id) ?? { id: citation_id } }));
      }
    }
  }
  for (const i of items) i.citation = i.citation?.id ? (cites.get(i.citation.id) ?? i.citation) : null;
}

/** A moratorium on its date, with segment[] over an interval; `period` and `labels` from moratoriumDetails. */
export function moratoriumItem(r: Row, t: SearchTimes, period: { from: string | null; through: string | null }) {
  const { from, to } = datesOf(t, r.jurisdiction_id);
  const ordinance = r.ordinance_id ? { introduced_on: r.introduced_on, status_listed: r.ordinance_status, adopted_listed: r.adopted_on } : null;
  const m = { ...period, ordinance };
  const status = moratoriumStatusOn(m, to);
  const adopted = ordinance && r.ordinance_status === 'adopted' && (!r.adopted_on || r.adopted_on <= to);
  return {
    id: r.id,
    jurisdiction: jurisdictionRef(r),
    title: r.title,
    status,
    ordinance: r.ordinance_id ? { id: r.ordinance_id, number: r.ordinance_number, href: `/ordinance/${r.ordinance_id}` } : null,
    subject: r.subject ?? [],
    use: r.use_labels.map((label: string) => ({ label, slug: null as string | null })),
    area: r.area_status === 'area_unknown' ? { kind: 'unknown', detail: 'The list names an area that is neither a district nor the whole jurisdiction.' } : r.town_wide ? { kind: 'jurisdiction' } : { kind: 'part', bbox: r.area_box },
    effective_from: period.from,
    effective_through: period.through,
    adopted_on: adopted ? r.adopted_on : null,
    href: `/law/${r.id}`,
    citation: { id: r.citation_id } as Row | null,
    ...(t.interval ? { segment: statusRuns(from, to, [r.introduced_on, r.adopted_on, period.from, period.through ? nextDay(period.through) : null], (d) => moratoriumStatusOn(m, d)) } : {}),
  };
}

/** Each moratorium's period as known (the first day any version was in force, the last day of the latest). */
export async function moratoriumPeriods(db: Queryable, rows: Row[], t: SearchTimes) {
  const out = new Map<string, { from: string | null; through: string | null }>();
  for (const [known, group] of byKnown(t, rows, (r) => r.jurisdiction_id)) {
    const { rows: p } = await db.query(
      'SELECT id, min(lower(valid))::text AS from FROM moratorium WHERE id = ANY($1::text[]) AND known @> $2::timestamptz GROUP BY id',
      [group.map((r) => r.id), known],
    );
    for (const r of group) out.set(r.id, { from: p.find((x) => x.id === r.id)?.from ?? null, through: r.effective_through });
  }
  return out;
}

/** The vocabulary slugs of the labels each moratorium pauses, and its citation. */
export async function decorateMoratoriums(db: Queryable, items: Array<Row>) {
  if (items.length === 0) return;
  const cites = await citationsByIds(db, items.map((i) => i.citation?.id));
  const { rows } = await db.query('SELECT jurisdiction_id, label_normalized, use_slug FROM use_label WHERE jurisdiction_id = ANY($1::text[])', [[...new Set(items.map((i) => i.jurisdiction.id))]]);
  for (const i of items) {
    for (const u of i.use) u.slug = rows.find((r) => r.jurisdiction_id === i.jurisdiction.id && r.label_normalized === normalizeLabel(u.label))?.use_slug ?? null;
    i.citation = i.citation?.id ? (cites.get(i.citation.id) ?? i.citation) : null;
  }
}
