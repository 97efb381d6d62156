// Citations: a verbatim quote of one version at one place. The quote is checked against the
// version's text before it is stored; a parser that quotes what is not there is a bug, refused.
import { sha256Hex, stableId } from '../core/ids.ts';
import type { CitationDraft } from '../ingest/types.ts';
import { copyRows } from './copy.ts';
import type { Client } from './db.ts';

export interface CitationContext {
  jurisdictionId: string;
  documentId: string;
  versionId: string;
  retrievedAt: Date;
  text: string;
}

export interface CitationExtra {
  adopted_on?: string | null;
  effective_from?: string | null;
  effective_through?: string | null;
  provenance?: Record<string, unknown>;
}

export class QuoteMismatch extends Error {
  constructor(readonly draft: CitationDraft) {
    super(`Quote not found verbatim at ${draft.locator.start}..${draft.locator.end}: ${JSON.stringify(draft.quote.slice(0, 80))}`);
  }
}

export function citationId(versionId: string, draft: CitationDraft): string {
  return stableId('citation', versionId, draft.locator.start, draft.locator.end, draft.locator.table ?? '', draft.locator.row ?? '', draft.locator.column ?? '');
}

/** Collects citations during a load and writes them with one COPY (before the facts citing them). */
export class CitationBatch {
  private rows = new Map<string, unknown[]>();

  constructor(private ctx: CitationContext) {}

  add(draft: CitationDraft, extra: CitationExtra = {}): string {
    const { start, end } = draft.locator;
    if (this.ctx.text.slice(start, end) !== draft.quote) throw new QuoteMismatch(draft);
    const id = citationId(this.ctx.versionId, draft);
    if (!this.rows.has(id)) {
      this.rows.set(id, [
        id,
        this.ctx.jurisdictionId,
        this.ctx.documentId,
        this.ctx.versionId,
        draft.quote,
        sha256Hex(draft.quote),
        draft.locator,
        draft.section_ref ?? draft.locator.section ?? null,
        extra.provenance ?? {},
        extra.adopted_on ?? null,
        extra.effective_from ?? null,
        extra.effective_through ?? null,
        this.ctx.retrievedAt,
      ]);
    }
    return id;
  }

  get size(): number {
    return this.rows.size;
  }

  async write(client: Client): Promise<number> {
    if (this.rows.size === 0) return 0;
    await client.query('CREATE TEMP TABLE stage_citation (LIKE citation INCLUDING DEFAULTS) ON COMMIT DROP');
    await copyRows(
      client,
      'stage_citation',
      ['id', 'jurisdiction_id', 'document_id', 'version_id', 'quote', 'quote_sha256', 'locator', 'section_ref', 'provenance', 'adopted_on', 'effective_from', 'effective_through', 'retrieved_at'],
      this.rows.values(),
    );
    const r = await client.query('INSERT INTO citation SELECT * FROM stage_citation ON CONFLICT (id) DO NOTHING');
    await client.query('DROP TABLE stage_citation');
    this.rows.clear();
    return r.rowCount ?? 0;
  }
}
