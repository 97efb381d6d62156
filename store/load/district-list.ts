// A publisher's district list: districts (code, name, description), each citing its line.
import { sourceTier } from '../coverage.ts';
import { sha256Hex } from '../../core/ids.ts';
import { parseDistrictList } from '../../ingest/district-list.ts';
import { CitationBatch } from '../citations.ts';
import { saveVersionText } from '../documents.ts';
import type { Loader } from './context.ts';
import { applyDistricts, CodeForms, districtEvents } from './districts.ts';

export const loadDistrictList: Loader = async (ctx) => {
  const parsed = parseDistrictList(await ctx.bytes(), ctx.source.manifest.fields ?? {});
  await saveVersionText(ctx.client, ctx.version.id, parsed.text, sha256Hex(parsed.text));
  const cites = new CitationBatch({ jurisdictionId: ctx.jurisdictionId, documentId: ctx.version.documentId, versionId: ctx.version.id, retrievedAt: ctx.version.retrievedAt, text: parsed.text });
  const forms = await CodeForms.byKind(ctx);
  const districts = parsed.districts.map((d) => ({ ...d, code_normalized: forms[d.kind].of(d.code_normalized) }));
  const delta = await applyDistricts(ctx, districts, cites);
  return {
    counts: { districts: parsed.districts.length, added: delta.added.length, changed: delta.changed.length, removed: delta.removed.length, unchanged: delta.unchanged },
    events: districtEvents(ctx, delta),
    issues: parsed.issues,
    coverage: [
      {
        jurisdictionId: ctx.jurisdictionId,
        layer: 'district_list',
        ...sourceTier(parsed.districts.length, parsed.issues.filter((i) => i.severity === 'error').length),
        sourceId: ctx.source.id,
        retrievedAt: ctx.version.retrievedAt,
        changedAt: delta.added.length + delta.changed.length + delta.removed.length > 0 ? ctx.now : null,
        earliestRetained: ctx.effectiveFrom,
        detail: { districts: parsed.districts.length, issues: parsed.issues },
      },
    ],
  };
};
