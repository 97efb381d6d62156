// Evidence (spec 4.5): citations in three formats with context, the retained source with the
// passage located, corrections, and replay of earlier answers.
import { ApiError, notFound } from '../../core/errors.ts';
import { newId, requireId } from '../../core/ids.ts';
import { loadAnswer } from '../../store/answers.ts';
import type { Queryable } from '../../store/db.ts';
import { type Req, defineRoutes } from '../route.ts';

const FREE = { credits: 0, per: 'call' as const, note: 'Free.' };

async function citationRow(db: Queryable, id: string) {
  const { rows } = await db.query(
    `SELECT c.*, d.title AS document_title, d.url_canonical, d.media_type, v.number AS version_number, v.sha256 AS version_sha256
       FROM citation c JOIN document d ON d.id = c.document_id JOIN document_version v ON v.id = c.version_id WHERE c.id = $1`,
    [id],
  );
  if (!rows[0]) throw notFound('citation', id);
  return rows[0];
}

/** The lines around the quote: n before and n after, verbatim. */
async function context(db: Queryable, versionId: string, start: number, end: number, n: number) {
  if (n <= 0) return null;
  const { rows } = await db.query('SELECT text FROM version_text WHERE version_id = $1', [versionId]);
  const text: string | undefined = rows[0]?.text;
  if (!text) return null;
  let from = text.lastIndexOf('\n', start - 1) + 1; // start of the quote's first line
  for (let i = 0; i < n && from > 0; i++) from = text.lastIndexOf('\n', from - 2) + 1;
  let to = text.indexOf('\n', end); // end of the quote's last line
  if (to < 0) to = text.length;
  for (let i = 0; i < n && to < text.length; i++) {
    const next = text.indexOf('\n', to + 1);
    to = next < 0 ? text.length : next;
  }
  return { before: text.slice(from, start), quote: text.slice(start, end), after: text.slice(end, to), start: from, end: to };
}

function citationItem(c: Record<string, any>, ctx: unknown) {
  return {
    id: c.id,
    jurisdiction: c.jurisdiction_id,
    document: c.document_id,
    document_title: c.document_title,
    version: c.version_id,
    locator: c.locator,
    quote: c.quote,
    quote_sha256: c.quote_sha256,
    retrieved_at: new Date(c.retrieved_at).toISOString(),
    provenance: { ...c.provenance, url: c.url_canonical, version_number: c.version_number, version_sha256: c.version_sha256 },
    href: `/citation/${c.id}`,
    source_href: `/citation/${c.id}/source`,
    section_ref: c.section_ref,
    context: ctx,
    adopted_on: c.adopted_on,
    effective_from: c.effective_from,
    effective_through: c.effective_through,
  };
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function citationId(req: Req) {
  return requireId('citation', req.params.citation, 'citation');
}

export const evidenceRoutes = defineRoutes([
  {
    id: 'getCitation',
    method: 'GET',
    path: '/citation/{citation}',
    summary: 'A citation: the quote, where it is, the document version and when it was retrieved',
    tag: 'Evidence',
    credential: 'key',
    scope: 'law:read',
    form: 'plain',
    produces: ['text/markdown', 'text/html'],
    price: FREE,
    params: [
      { name: 'citation', in: 'path', type: 'string', required: true },
      { name: 'context_line', in: 'query', type: 'integer', min: 0, max: 20, default: 0, description: 'Lines of the source before and after the quote.' },
      { name: 'format', in: 'query', type: 'string', enum: ['json', 'markdown', 'html'], default: 'json' },
    ],
    handler: async (req) => {
      const c = await citationRow(req.services.pool, citationId(req));
      const ctx = await context(req.services.pool, c.version_id, c.locator.start, c.locator.end, req.params.context_line);
      const item = citationItem(c, ctx);
      const where = [c.section_ref && `§ ${c.section_ref}`, c.locator.table, c.locator.row && `row “${c.locator.row}”`, c.locator.column && `column “${c.locator.column}”`].filter(Boolean).join(', ');
      if (req.params.format === 'markdown') {
        const quoted = (ctx ? `${ctx.before}**${ctx.quote}**${ctx.after}` : c.quote).split('\n').map((l: string) => `> ${l}`).join('\n');
        const body = `${quoted}\n\n— ${c.document_title}${where ? `, ${where}` : ''}. Version ${c.version_number} (sha256 ${c.version_sha256.slice(0, 12)}…), retrieved ${item.retrieved_at}${c.url_canonical ? ` from ${c.url_canonical}` : ''}.\n`;
        return { raw: true, body, contentType: 'text/markdown; charset=utf-8' };
      }
      if (req.params.format === 'html') {
        const inner = ctx ? `${escapeHtml(ctx.before)}<mark>${escapeHtml(ctx.quote)}</mark>${escapeHtml(ctx.after)}` : `<mark>${escapeHtml(c.quote)}</mark>`;
        const body = `<!doctype html><meta charset="utf-8"><title>${escapeHtml(c.id)}</title><figure><blockquote style="white-space:pre-wrap">${inner}</blockquote><figcaption>${escapeHtml(c.document_title)}${where ? `, ${escapeHtml(where)}` : ''}; retrieved ${item.retrieved_at}. <a href="/citation/${c.id}/source#passage">source</a></figcaption></figure>\n`;
        return { raw: true, body, contentType: 'text/html; charset=utf-8' };
      }
      return { item };
    },
  },
  {
    id: 'getCitationSource',
    refuses: ['not_available'],
    method: 'GET',
    path: '/citation/{citation}/source',
    summary: 'The retained page the passage was read from, with the passage marked',
    tag: 'Evidence',
    credential: 'key',
    scope: 'law:read',
    form: 'raw',
    produces: ['text/html', 'text/plain'],
    price: FREE,
    params: [
      { name: 'citation', in: 'path', type: 'string', required: true },
      { name: 'format', in: 'query', type: 'string', enum: ['html', 'text'], default: 'html' },
    ],
    handler: async (req) => {
      const c = await citationRow(req.services.pool, citationId(req));
      const { rows } = await req.services.pool.query('SELECT text FROM version_text WHERE version_id = $1', [c.version_id]);
      if (!rows[0]) throw new ApiError('not_available', { detail: 'The text of this version is not retained.' });
      const text: string = rows[0].text;
      const { start, end } = c.locator;
      const headers = { 'X-Passage-Start': String(start), 'X-Passage-End': String(end), 'X-Version': c.version_id };
      if (req.params.format === 'text') return { body: text, contentType: 'text/plain; charset=utf-8', headers };
      const body = `<!doctype html><meta charset="utf-8"><title>${escapeHtml(c.document_title)} (version ${c.version_number})</title><p>${escapeHtml(c.document_title)}, version ${c.version_number}, retrieved ${new Date(c.retrieved_at).toISOString()}. The cited passage is <a href="#passage">marked</a>.</p><pre style="white-space:pre-wrap">${escapeHtml(text.slice(0, start))}<mark id="passage">${escapeHtml(text.slice(start, end))}</mark>${escapeHtml(text.slice(end))}</pre>\n`;
      return { body, contentType: 'text/html; charset=utf-8', headers };
    },
  },
  {
    id: 'createCorrection',
    method: 'POST',
    path: '/citation/{citation}/correction',
    summary: 'Dispute a passage',
    tag: 'Evidence',
    credential: 'key',
    scope: 'law:read',
    form: 'plain',
    status: 201,
    idempotent: true,
    params: [{ name: 'citation', in: 'path', type: 'string', required: true }],
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['subject', 'claim'],
      properties: {
        subject: { type: 'string', minLength: 1, maxLength: 500 },
        claim: { type: 'string', minLength: 1, maxLength: 5000 },
        proposed_value: { type: ['string', 'null'], maxLength: 2000 },
        evidence_url: { type: ['string', 'null'], format: 'uri', maxLength: 2000 },
        document: { type: ['string', 'null'], maxLength: 200 },
      },
    },
    handler: async (req) => {
      const c = await citationRow(req.services.pool, citationId(req));
      const b = req.body;
      const satisfy = `A retained public document that states ${b.subject} otherwise: a later version of “${c.document_title}”, or an ordinance adopted${c.effective_from ? ` after ${c.effective_from}` : ''} that amends ${c.section_ref ? `§ ${c.section_ref}` : 'this passage'}. Link it in evidence_url.`;
      const { rows } = await req.services.pool.query(
        `INSERT INTO correction (id, organization_id, citation_id, subject, claim, proposed_value, evidence_url, document, what_would_satisfy_it)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`,
        [newId('correction'), req.actor!.organizationId, c.id, b.subject, b.claim, b.proposed_value ?? null, b.evidence_url ?? null, b.document ?? null, satisfy],
      );
      return { status: 201, item: correctionItem(rows[0]), headers: { Location: `/citation/${c.id}/correction/${rows[0].id}` } };
    },
  },
  {
    id: 'getCorrection',
    method: 'GET',
    path: '/citation/{citation}/correction/{correction}',
    summary: 'Where a correction stands',
    tag: 'Evidence',
    credential: 'key',
    scope: 'law:read',
    form: 'plain',
    params: [
      { name: 'citation', in: 'path', type: 'string', required: true },
      { name: 'correction', in: 'path', type: 'string', required: true },
    ],
    handler: async (req) => {
      const cit = citationId(req);
      const id = requireId('correction', req.params.correction, 'correction');
      const { rows } = await req.services.pool.query('SELECT * FROM correction WHERE id = $1 AND citation_id = $2 AND organization_id = $3', [id, cit, req.actor!.organizationId]);
      if (!rows[0]) throw notFound('correction', id);
      return { item: correctionItem(rows[0]) };
    },
  },
  {
    id: 'getAnswer',
    method: 'GET',
    path: '/answer/{answer}',
    summary: 'Replay an earlier answer exactly as it was given',
    tag: 'Evidence',
    credential: 'key',
    form: 'raw',
    price: FREE,
    params: [{ name: 'answer', in: 'path', type: 'string', required: true }],
    handler: async (req) => {
      const id = requireId('answer', req.params.answer, 'answer');
      const a = await loadAnswer(req.services.pool, id, req.actor!.organizationId);
      if (!a) throw notFound('answer', id);
      return { body: a.body, contentType: 'application/json', headers: { 'X-Answered-At': new Date(a.created_at).toISOString() } };
    },
  },
]);

function correctionItem(r: Record<string, any>) {
  return {
    id: r.id,
    citation: r.citation_id,
    subject: r.subject,
    claim: r.claim,
    state: r.state,
    created_at: new Date(r.created_at).toISOString(),
    href: `/citation/${r.citation_id}/correction/${r.id}`,
    proposed_value: r.proposed_value,
    evidence_url: r.evidence_url,
    document: r.document,
    what_would_satisfy_it: r.what_would_satisfy_it,
    reviewed_at: r.reviewed_at,
    resolution: r.resolution,
  };
}
