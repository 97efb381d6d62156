// GET /meeting (spec 4.3 "other searches"): meetings of the bodies that decide (planning board,
// zoning board, council...) across towns in one scope, with their agendas and the decisions taken
// where the publisher's meeting feed states them, each meeting cited to its feed record. The cases
// and ordinances they name link to the records held. Jurisdictions in scope whose meetings are not
// held are named in coverage and layer[].
import { openCursor } from '../../core/query/cursor.ts';
import { addCondition, collectionParams, type FilterSet, runCollection, timeParams, type Where } from '../../core/query/index.ts';
import { resolveScope, SCOPE_PARAMS } from '../../core/query/scope.ts';
import type { Queryable } from '../../store/db.ts';
import { citationsByIds } from '../../store/evidence.ts';
import { scopeCoverage } from '../../store/search/coverage.ts';
import { BODY_TYPES, MEETING_STATUSES, type MeetingRefs, meetingRefs, meetingResource, meetingWhere } from '../../store/search/meetings.ts';
import { searchTimes } from '../../store/search/when.ts';
import { FIELD_PARAM } from '../fields.ts';
import { defineRoutes } from '../route.ts';
import { jurisdictionRef, searchExtra } from '../search/items.ts';
import { MEETING } from './records-schemas.ts';

type Row = Record<string, any>;
const HTTP = /^https?:\/\//;

const link = (url: string | null, base: string | null | undefined) => (url && !HTTP.test(url) && base && HTTP.test(base) ? new URL(url, base).toString() : url);

function ref(kind: 'case' | 'ordinance', number: string | null, j: string, refs: MeetingRefs) {
  if (!number) return null;
  const id = (kind === 'case' ? refs.cases : refs.ordinances).get(`${j} ${number.toUpperCase()}`) ?? null;
  return { number, id, href: id ? (kind === 'case' ? `/v1/case/${id}` : `/ordinance/${id}`) : null };
}

function meetingItem(r: Row, refs: MeetingRefs, citation: unknown) {
  const b = r.body;
  const base = refs.feeds.get(r.source_version_id);
  const j = r.jurisdiction_id as string;
  return {
    id: r.id,
    key: r.meeting_key,
    jurisdiction: jurisdictionRef(r),
    body: { name: r.body_name, type: r.body_type },
    date: r.date,
    time: r.time_local,
    timezone: r.timezone,
    location: b.location,
    status: r.status,
    status_raw: b.status_raw,
    agenda: b.agenda.map((a: Row) => ({ item: a.item, title: a.title, case: ref('case', a.case, j, refs), ordinance: ref('ordinance', a.ordinance, j, refs) })),
    decision: b.decision.map((d: Row) => ({ item: d.item, case: ref('case', d.case, j, refs), ordinance: ref('ordinance', d.ordinance, j, refs), outcome: d.outcome, text: d.text, vote: d.vote })),
    document: { agenda_url: link(b.document.agenda_url, base), minutes_url: link(b.document.minutes_url, base) },
    citation,
  };
}

async function meetingItems(db: Queryable, rows: Row[], known: string) {
  if (rows.length === 0) return [];
  const [refs, cites] = await Promise.all([meetingRefs(db, rows, known), citationsByIds(db, rows.map((r) => r.citation_id))]);
  return rows.map((r) => ({ ...meetingItem(r, refs, r.citation_id ? (cites.get(r.citation_id) ?? null) : null), ...(r.filter_outcome ? { filter_outcome: r.filter_outcome } : {}) }));
}

function dateFilter(p: Record<string, any>): FilterSet | undefined {
  let filter: FilterSet | undefined = p.filter;
  for (const op of ['gte', 'lte'] as const) if (p[`date[${op}]`] !== undefined) filter = addCondition(filter, { field: 'date', op, param: `date[${op}]`, operands: [p[`date[${op}]`]] });
  return filter;
}

export const meetingRoutes = defineRoutes([
  {
    id: 'listMeetings',
    method: 'GET',
    path: '/meeting',
    summary: 'Meetings of the bodies that decide (planning board, zoning board, council) across towns in one scope, with agendas and decisions',
    description:
      "One item per meeting a publisher's meeting feed lists, as known at known_as_of: the body (its name as printed and its type; null where the feed names a body Landlex does not map), local date, time and timezone, status (scheduled, held, cancelled, postponed), agenda[] and decision[] as printed (a vote only where one is printed), each case and ordinance named linked to the record held (id null where none is held), and citation: the feed record, quoted verbatim. coverage and layer[] name the jurisdictions in scope whose meetings are not held.",
    tag: 'Search across towns',
    credential: 'key',
    scope: 'law:read',
    form: 'plain',
    collection: true,
    dryRun: true,
    response: MEETING,
    fields: { fixed: ['id'] },
    price: { credits: 1, per: 'call', note: 'One credit per page.' },
    params: [
      { name: 'body', in: 'query', type: 'array', items: { type: 'string', enum: BODY_TYPES }, description: 'The type of body meeting.' },
      { name: 'status', in: 'query', type: 'array', items: { type: 'string', enum: MEETING_STATUSES } },
      { name: 'case', in: 'query', type: 'array', description: 'Case numbers (as published): meetings whose agenda or decisions name one.' },
      { name: 'ordinance', in: 'query', type: 'array', description: 'Ordinance numbers: meetings whose agenda or decisions name one.' },
      { name: 'date[gte]', in: 'query', type: 'date', description: 'Meeting on or after this local date.' },
      { name: 'date[lte]', in: 'query', type: 'date', description: 'Meeting on or before this local date.' },
      ...timeParams().filter((x) => x.name === 'known_as_of'),
      ...SCOPE_PARAMS,
      ...collectionParams(meetingResource),
      FIELD_PARAM,
    ],
    handler: async (req) => {
      const db = req.services.pool;
      const p = req.params;
      const scope = await resolveScope(db, p, { organizationId: req.actor?.organizationId });
      const pinned = p.cursor ? openCursor(p.cursor, req.services.secret).t : null;
      const t = await searchTimes(db, p, scope.ids, pinned);
      const where: Where[] = meetingWhere(t, scope.ids);
      if (p.body) where.push((c) => `m.body_type = ANY(${c.bind(p.body, 'text[]')})`);
      if (p.status) where.push((c) => `m.status = ANY(${c.bind(p.status, 'text[]')})`);
      if (p.case) where.push((c) => `m.case_numbers && ${c.bind(p.case, 'text[]')}`);
      if (p.ordinance) where.push((c) => `m.ordinance_numbers && ${c.bind(p.ordinance, 'text[]')}`);
      const r = await runCollection(db, meetingResource, { ...p, filter: dateFilter(p) }, req.services.secret, { snapshot: t.known, where });
      const items = await meetingItems(db, r.items, t.known);
      const cov = await scopeCoverage(db, scope, ['meeting'], [...new Set(r.items.map((i) => i.jurisdiction_id as string))]);
      return { item: items, page: r.page, extra: searchExtra(t, cov) };
    },
  },
]);
