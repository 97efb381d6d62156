// The plans that govern a town (GET /jurisdiction/{id}/plan), as the store holds them: those its
// code text in force names (ingest/ordinance/plans.ts reads the sections; each passage cited), and
// the versions of its future land use map (a plan's map) in force, each with its document.
import { plansNamed, type PlanPassage, type PlanRead } from '../../ingest/ordinance/plans.ts';
import { codeTextsHeld, codeTextsInForce } from '../../store/codes.ts';
import type { Queryable } from '../../store/db.ts';
import { citationsByIds } from '../../store/evidence.ts';
import type { Times } from '../../store/place/resolve.ts';
import { whyNoCodeText } from './code-text.ts';
import type { Town } from './context.ts';

/** The plans the code text in force names, each passage with its citation. */
async function plansOfCode(db: Queryable, town: Town, t: Times) {
  const { rows } = await db.query(
    `SELECT x.ref, x.heading, x.body, x.citation_id, doc.id AS document, doc.title
       FROM section x JOIN document doc ON doc.id = x.document_id JOIN source s ON s.id = doc.source_id AND s.kind = 'code_text'
      WHERE x.jurisdiction_id = $1 AND x.valid @> $2::date AND x.known @> $3::timestamptz ORDER BY doc.id, x.ordinal, x.ref`,
    [town.j.id, t.asOf, t.knownAsOf],
  );
  const read = plansNamed(rows);
  const ids = read.flatMap((p) => [...p.definition, ...p.mention].map((x) => x.citation_id));
  const cites = await citationsByIds(db, ids);
  const passage = (x: PlanPassage) => ({ text: x.text, section_ref: x.section_ref, citation: x.citation_id ? (cites.get(x.citation_id) ?? null) : null });
  const the = (name: string) => (/\bPlan$/.test(name) ? `the ${name}` : name);
  const where = `the code text held for ${town.j.name} in force on ${t.asOf}`;
  const view = (p: PlanRead) => ({
    name: p.name,
    basis: 'code_text',
    alias: p.alias,
    definition: p.definition.length ? { status: 'stated', passage: p.definition.map(passage) } : { status: 'withheld', passage: [], reason: `No section or definition of ${where} is headed ${p.name}.` },
    mention: p.mention.map(passage),
    consistency: p.consistency.length
      ? { status: 'stated', required: true, passage: p.consistency.map(passage) }
      : { status: 'withheld', passage: [], reason: `No sentence of ${where} requires consistency or conformance with ${the(p.name)}.` },
    adopted_on: p.adopted ? { status: 'stated', date: p.adopted.date, passage: [passage(p.adopted.passage)] } : { status: 'withheld', passage: [], reason: `No sentence of ${where} naming ${the(p.name)} states when it was adopted.` },
    adopted_by: p.adopted_by.map((b) => ({ body: b.body, passage: passage(b.passage) })),
  });
  return { plans: read.map(view), sections: rows.length };
}

export interface PlanMap {
  name: string;
  basis: 'future_land_use_map';
  map_version: string;
  effective_from: string;
  effective_through: string | null;
  effective_basis: string;
  adopted_on: string | null;
  feature_count: number;
  document: { id: string; title: string; url: string | null; href: string } | null;
  version: string | null;
}

/** The future land use map versions in force on the date, known at the instant (the latest of each document). */
async function planMaps(db: Queryable, jurisdictionId: string, t: Times): Promise<PlanMap[]> {
  const { rows } = await db.query(
    `SELECT m.id, m.effective_from::text, m.effective_basis, m.adopted_on::text, m.feature_count, m.version_id, d.id AS document, d.title, d.url_canonical,
            COALESCE(m.effective_through, (SELECT min(n.effective_from) FROM map_version n WHERE n.document_id = m.document_id AND n.layer = m.layer AND n.id <> m.id
              AND n.known @> $3::timestamptz AND n.effective_from > m.effective_from))::text AS effective_through
       FROM map_version m LEFT JOIN document d ON d.id = m.document_id
      WHERE m.jurisdiction_id = $1 AND m.layer = 'future_land_use' AND m.known @> $3::timestamptz AND m.effective_from <= $2::date
        AND (m.effective_through IS NULL OR m.effective_through > $2::date)
        AND NOT EXISTS (SELECT 1 FROM map_version n WHERE n.document_id = m.document_id AND n.layer = m.layer AND n.id <> m.id AND n.known @> $3::timestamptz
              AND n.effective_from <= $2::date AND (n.effective_from > m.effective_from OR (n.effective_from = m.effective_from AND lower(n.known) > lower(m.known))))
      ORDER BY m.effective_from, m.id`,
    [jurisdictionId, t.asOf, t.knownAsOf],
  );
  return rows.map((r) => ({
    name: r.title ?? r.id,
    basis: 'future_land_use_map',
    map_version: r.id,
    effective_from: r.effective_from,
    effective_through: r.effective_through,
    effective_basis: r.effective_basis,
    adopted_on: r.adopted_on,
    feature_count: r.feature_count,
    document: r.document ? { id: r.document, title: r.title, url: r.url_canonical, href: `/document/${r.document}` } : null,
    version: r.version_id,
  }));
}

/** How many future land use map versions are held at all, as known at the instant. */
async function mapsHeld(db: Queryable, jurisdictionId: string, knownAsOf: string): Promise<{ count: number; from: string | null }> {
  const { rows } = await db.query(
    `SELECT count(*)::int AS count, min(effective_from)::text AS "from" FROM map_version WHERE jurisdiction_id = $1 AND layer = 'future_land_use' AND known @> $2::timestamptz`,
    [jurisdictionId, knownAsOf],
  );
  return rows[0];
}

/** The plans in force on the date, or the reason none is held (from what the store holds of the town's code texts and maps). */
export async function plansAt(db: Queryable, town: Town, t: Times): Promise<{ plan: unknown[]; reason: string | null }> {
  const codes = await codeTextsInForce(db, town.j.id, t);
  const fromCode = codes.length ? await plansOfCode(db, town, t) : null;
  const maps = await planMaps(db, town.j.id, t);
  const plan = [...(fromCode?.plans ?? []), ...maps];
  if (plan.length) return { plan, reason: null };
  const code = fromCode
    ? `The code text held for ${town.j.name} (${codes.map((c) => c.title).join('; ')}), ${fromCode.sections} sections in force on ${t.asOf}, names no comprehensive or master plan it implements or must be consistent with.`
    : whyNoCodeText(town, await codeTextsHeld(db, town.j.id, t.knownAsOf), t);
  const held = await mapsHeld(db, town.j.id, t.knownAsOf);
  const map = held.count
    ? `The ${held.count} future land use map version(s) held for ${town.j.name} take effect from ${held.from}; none is in force on ${t.asOf}.`
    : `No future land use map of ${town.j.name} is held (as known at ${t.knownAsOf}).`;
  return { plan: [], reason: `${code} ${map}` };
}
