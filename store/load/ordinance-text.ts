// One ordinance's own text: the instructions it gives (amendment_instruction), each citing its
// sentence. Read so that a pending amendment can be shown as the classifications it would make
// (/v1/zoning?legal_status=proposed); nothing held changes until the amendment is in force. The
// text is held once read: partial where a sentence that amends was not read.
import { sha256Hex } from '../../core/ids.ts';
import { parseAmendmentText } from '../../ingest/ordinance/amendment-text.ts';
import { CitationBatch } from '../citations.ts';
import { saveVersionText } from '../documents.ts';
import type { Loader } from './context.ts';
import { mediaTypeOf } from './index.ts';
import { ordinanceIdFor } from './ordinances.ts';

export const loadOrdinanceText: Loader = async (ctx) => {
  const m = ctx.source.manifest;
  if (!m.ordinance) throw new Error(`source ${ctx.source.key} names no ordinance`);
  const j = ctx.jurisdictionId;
  const parsed = await parseAmendmentText(await ctx.bytes(), mediaTypeOf(m.format));
  await saveVersionText(ctx.client, ctx.version.id, parsed.text, sha256Hex(parsed.text));
  const cites = new CitationBatch({ jurisdictionId: j, documentId: ctx.version.documentId, versionId: ctx.version.id, retrievedAt: ctx.version.retrievedAt, text: parsed.text });
  const ordinanceId = ordinanceIdFor(j, m.ordinance);
  const rows = parsed.instructions.map((x, i) => [
    `${ctx.version.id}:${i + 1}`,
    j,
    ordinanceId,
    ctx.source.id,
    ctx.version.id,
    i + 1,
    x.action,
    x.target,
    x.ref,
    x.row,
    x.column,
    x.control_type,
    x.struck,
    x.inserted,
    x.unit,
    x.from?.code ?? null,
    x.from?.name ?? null,
    x.to?.code ?? null,
    x.to?.name ?? null,
    x.land,
    x.address,
    x.reason,
    cites.add({ quote: x.quote, locator: { start: x.start, end: x.end, line: i + 1 }, section_ref: x.ref ?? undefined }, { provenance: { ordinance: m.ordinance, instruction: i + 1 } }),
    ctx.now,
  ]);
  await cites.write(ctx.client);
  for (const r of rows) {
    await ctx.client.query(
      `INSERT INTO amendment_instruction (id, jurisdiction_id, ordinance_id, source_id, source_version_id, ordinal, action, target, ref, row_code, column_label, control_type,
         struck, inserted, unit, from_code, from_name, to_code, to_name, land, address, reason, citation_id, known_from)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24)
       ON CONFLICT (source_version_id, ordinal) DO NOTHING`,
      r,
    );
  }
  await ctx.client.query(
    `INSERT INTO ordinance_text_read (source_version_id, jurisdiction_id, ordinance_id, instructions, known_from) VALUES ($1,$2,$3,$4,$5)
     ON CONFLICT (source_version_id) DO NOTHING`,
    [ctx.version.id, j, ordinanceId, rows.length, ctx.now],
  );
  const unread = parsed.instructions.filter((x) => x.action === 'unread');
  return {
    counts: { instructions: parsed.instructions.length, unread: unread.length },
    events: [],
    issues: [...parsed.issues, ...unread.map((x) => ({ severity: 'warning' as const, code: 'instruction_unread', detail: `ordinance ${m.ordinance}: ${x.reason}: ${x.quote.slice(0, 160)}` }))],
    coverage: [{ jurisdictionId: j, layer: 'ordinance_text', sourceKey: ctx.source.key, held: true, tier: unread.length > 0 ? 'partial' : 'full', sourceId: ctx.source.id, retrievedAt: ctx.version.retrievedAt, changedAt: ctx.now, earliestRetained: ctx.effectiveFrom, detail: { ordinance: m.ordinance, instructions: parsed.instructions.length, unread: unread.length } }],
  };
};
