// Permit, case and meeting feeds (JSON): permits, applications and cases (pmt_, apl_, cas_) and
// meetings (mtg_), each citing its own record: the characters of the record as published, in the
// version's text (the feed itself), so a quote is found verbatim where the record was read.
import { sha256Hex, stableId } from '../../core/ids.ts';
import { arraySpans, feedMapping, meetingMapping, numbersNamed, parseFeed, parseMeetingFeed, type Span } from '../../ingest/records/index.ts';
import { applyFacts } from '../bitemporal.ts';
import { CitationBatch } from '../citations.ts';
import { sourceTier } from '../coverage.ts';
import type { Queryable } from '../db.ts';
import { saveVersionText } from '../documents.ts';
import { matchNewRecords } from '../monitors/records.ts';
import type { LoadContext, Loader, LoadResult } from './context.ts';

/** The feed's text as read, kept for citations, and a citer of its records by their 1-based index. */
async function recordCiter(ctx: LoadContext, recordsPath: string) {
  const text = new TextDecoder('utf-8').decode(await ctx.bytes());
  const spans: Span[] = arraySpans(text, recordsPath) ?? [];
  await saveVersionText(ctx.client, ctx.version.id, text, sha256Hex(text));
  const batch = new CitationBatch({ jurisdictionId: ctx.jurisdictionId, documentId: ctx.version.documentId, versionId: ctx.version.id, retrievedAt: ctx.version.retrievedAt, text });
  return {
    text,
    cite: (line: number, row: string, extra: { effective_from?: string | null } = {}) => {
      const s = spans[line - 1];
      if (!s) return null;
      return batch.add({ quote: text.slice(s.start, s.end), locator: { start: s.start, end: s.end, line, row, table: recordsPath || 'records' } }, extra);
    },
    write: () => batch.write(ctx.client),
  };
}

async function parcelIndex(db: Queryable, jurisdictionId: string) {
  const { rows } = await db.query(
    `SELECT parcel_key, array_agg(DISTINCT id) AS ids FROM parcel WHERE jurisdiction_id = $1 AND upper_inf(known) AND upper_inf(valid) GROUP BY parcel_key`,
    [jurisdictionId],
  );
  const p = new Map(rows.map((r) => [r.parcel_key as string, r.ids as string[]]));
  return (keys: string[]) => [...new Set(keys.flatMap((k) => p.get(k) ?? []))];
}

const scopeOf = (ctx: LoadContext) => ({ where: 't.jurisdiction_id = $1 AND t.source_id = $2', params: [ctx.jurisdictionId, ctx.source.id] });

const rejectedIssues = (rejected: Array<{ line: number; reason: string }>) => rejected.map((r) => ({ severity: 'warning' as const, code: 'row_rejected', detail: `line ${r.line}: ${r.reason}` }));

export const loadPermitFeed: Loader = async (ctx): Promise<LoadResult> => {
  const mapping = feedMapping(ctx.source.manifest.mapping ?? '');
  const parsed = parseFeed(await ctx.bytes(), mapping);
  const j = ctx.jurisdictionId;
  const parcels = await parcelIndex(ctx.client, j);
  const citer = await recordCiter(ctx, mapping.records_path);
  const all = [...parsed.permits.map((b) => ['permit', b] as const), ...parsed.applications.map((b) => ['application', b] as const), ...parsed.cases.map((b) => ['case', b] as const)];
  const facts = all.map(([kind, b]) => ({
    id: stableId(kind, j, b.number),
    content_sha256: sha256Hex(JSON.stringify(b)),
    valid_from: '-infinity',
    values: [ctx.source.id, kind, j, b.number, JSON.stringify(b), parcels(b.parcel_keys), b.dates.issued ?? b.dates.applied ?? null, citer.cite(b.line, b.number), ctx.version.id],
  }));
  await citer.write();
  const delta = await applyFacts(
    ctx.client,
    { table: 'land_record', columns: ['source_id', 'kind', 'jurisdiction_id', 'number', 'body', 'parcel_ids', 'published_on', 'citation_id', 'source_version_id'], scope: scopeOf(ctx), deltaColumns: ['kind', 'number'] },
    facts,
    { now: ctx.now, removeMissing: false },
  );
  await matchNewRecords(ctx.client, delta.added.map((r) => r.id), ctx.now);
  const layer = ctx.source.manifest.kind === 'case_feed' ? 'case' : 'permit';
  const read = parsed.permits.length + parsed.applications.length + parsed.cases.length;
  return {
    counts: { permits: parsed.permits.length, applications: parsed.applications.length, cases: parsed.cases.length, record_added: delta.added.length, record_changed: delta.changed.length, rejected: parsed.rejected.length },
    events: [],
    issues: [...parsed.issues, ...rejectedIssues(parsed.rejected)],
    coverage: [{ jurisdictionId: j, layer, ...sourceTier(read, parsed.rejected.length), sourceId: ctx.source.id, retrievedAt: ctx.version.retrievedAt, changedAt: delta.added.length ? ctx.now : null, detail: { permits: parsed.permits.length, applications: parsed.applications.length, cases: parsed.cases.length } }],
  };
};

export const meetingIdFor = (jurisdictionId: string, key: string) => stableId('meeting', jurisdictionId, key);

export const loadMeetingFeed: Loader = async (ctx): Promise<LoadResult> => {
  const mapping = meetingMapping(ctx.source.manifest.mapping ?? '');
  const parsed = parseMeetingFeed(await ctx.bytes(), mapping);
  const j = ctx.jurisdictionId;
  const citer = await recordCiter(ctx, mapping.records_path);
  const facts = parsed.meetings.map((m) => {
    const named = numbersNamed(m);
    const body = { location: m.location, status_raw: m.status_raw, agenda: m.agenda, decision: m.decision, document: m.document, line: m.line };
    return {
      id: meetingIdFor(j, m.key),
      content_sha256: sha256Hex(JSON.stringify(m)),
      valid_from: '-infinity',
      values: [ctx.source.id, j, m.key, m.body.name, m.body.type, m.date, m.time, m.status, JSON.stringify(body), named.cases, named.ordinances, citer.cite(m.line, m.key), ctx.version.id],
    };
  });
  await citer.write();
  const delta = await applyFacts(
    ctx.client,
    {
      table: 'meeting',
      columns: ['source_id', 'jurisdiction_id', 'meeting_key', 'body_name', 'body_type', 'meets_on', 'time_local', 'status', 'body', 'case_numbers', 'ordinance_numbers', 'citation_id', 'source_version_id'],
      scope: scopeOf(ctx),
    },
    facts,
    // a meeting the feed no longer lists stays on record: feeds list a window of recent and coming meetings
    { now: ctx.now, removeMissing: false },
  );
  const bodies = [...new Set(parsed.meetings.map((m) => m.body.type ?? m.body.name))].sort();
  return {
    counts: { meetings: parsed.meetings.length, meeting_added: delta.added.length, meeting_changed: delta.changed.length, rejected: parsed.rejected.length },
    events: [],
    issues: [...parsed.issues, ...rejectedIssues(parsed.rejected)],
    coverage: [{ jurisdictionId: j, layer: 'meeting', ...sourceTier(parsed.meetings.length, parsed.rejected.length), sourceId: ctx.source.id, retrievedAt: ctx.version.retrievedAt, changedAt: delta.added.length || delta.changed.length ? ctx.now : null, detail: { meetings: parsed.meetings.length, bodies } }],
  };
};
