// GET /jurisdiction/{id}?include=body: the boards, commissions, councils and committees the
// held code text names (ingest/ordinance/bodies.ts), each citing the section that names it with
// the sentence quoted; where none can be read, why, from the store.
import { localDate } from '../core/time.ts';
import { namedBodies } from '../ingest/ordinance/bodies.ts';
import { sectionsInForce } from '../store/code-bodies.ts';
import type { Queryable } from '../store/db.ts';
import { citationsByIds } from '../store/evidence.ts';
import { containment, type JurisdictionRow } from '../store/jurisdictions.ts';
import { heldLayers } from './place/held.ts';

export const BODY_SCHEMA = {
  type: 'array',
  description: 'Bodies the code text in force today names (after "the": … Board, Commission, Council, Committee or Authority), established ones first',
  items: {
    type: 'object',
    required: ['name', 'also_named', 'jurisdiction', 'basis', 'mention_count', 'section_count', 'section', 'quote', 'citation', 'status'],
    properties: {
      name: { type: 'string' },
      also_named: { type: 'array', items: { type: 'string' }, description: 'Other printings of it the text gives' },
      jurisdiction: { type: ['string', 'null'], description: 'Whose body the text makes it; null when it does not say' },
      basis: { enum: ['established', 'section', 'name', null], description: 'established: a sentence establishes it; section: a section is headed with its name; name: its name begins with a jurisdiction\'s name or type' },
      mention_count: { type: 'integer' },
      section_count: { type: 'integer' },
      section: { type: 'object', properties: { ref: { type: 'string' }, heading: { type: ['string', 'null'] }, document: { type: 'string' } } },
      quote: { type: 'string', description: "The sentence of the section's text that names it, verbatim" },
      citation: { type: ['object', 'null'], description: 'The citation of the section quoted' },
      status: { const: 'stated' },
    },
  },
};

/** The bodies named, or none and the reason. */
export async function codeBodies(db: Queryable, j: JurisdictionRow): Promise<{ body: unknown[]; reason: string | null }> {
  const now = new Date();
  const t = { asOf: localDate(now, j.timezone), knownAsOf: now.toISOString() };
  const sections = await sectionsInForce(db, j.id, t.asOf, t.knownAsOf);
  if (!sections.length) {
    const held = (await heldLayers(db, j, ['zoning_text'], t)).get('zoning_text')!;
    return { body: [], reason: held.held ? `the code text held for ${j.name} has no section in force on ${t.asOf} as known at ${t.knownAsOf}` : held.reason! };
  }
  const places = [{ id: j.id, name: j.name, type: j.type }, ...(await containment(db, j.id)).map((c) => ({ id: c.id, name: c.name, type: c.type }))];
  const found = namedBodies(sections, places);
  if (!found.length) {
    return { body: [], reason: `the ${sections.length} sections of the code text of ${j.name} in force on ${t.asOf} name no board, commission, council, committee or authority` };
  }
  const cites = await citationsByIds(db, found.map((b) => b.section.citation_id));
  const body = found.map(({ section, ...b }) => ({
    ...b,
    section: { ref: section.ref, heading: section.heading, document: section.document_id },
    citation: section.citation_id ? (cites.get(section.citation_id) ?? null) : null,
    status: 'stated',
  }));
  return { body, reason: null };
}
