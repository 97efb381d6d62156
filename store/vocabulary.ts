// The uses vocabulary (vocabulary/uses.json) and a jurisdiction's local labels
// (vocabulary/local/<file>) into use_term and use_label. Unmapped labels are kept with a null slug.
import { readFileSync, existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { stableId } from '../core/ids.ts';
import type { JurisdictionManifest } from '../ingest/manifest.ts';
import { normalizeLabel } from '../ingest/labels.ts';
import type { Client } from './db.ts';
import { fipsKey } from '../ingest/manifest.ts';
import { jurisdictionIdFor } from './sources.ts';

export const VOCABULARY_DIR = resolve(import.meta.dirname, '..', 'vocabulary');

interface Term {
  slug: string;
  name: string;
  category: string;
  parent?: string | null;
  description?: string | null;
}

export function readTerms(dir = VOCABULARY_DIR): Term[] {
  const raw = JSON.parse(readFileSync(resolve(dir, 'uses.json'), 'utf8'));
  return (Array.isArray(raw) ? raw : raw.terms ?? raw.uses) as Term[];
}

/** Label → slug (or null) from a local mapping file, in either of its accepted shapes. */
export function readLocalLabels(file: string, dir = VOCABULARY_DIR): Map<string, { raw: string; slug: string | null }> {
  const raw = JSON.parse(readFileSync(resolve(dir, 'local', file), 'utf8'));
  const entries: Array<[string, string | null]> = Array.isArray(raw)
    ? raw.map((e: { label: string; slug: string | null }) => [e.label, e.slug])
    : Array.isArray(raw.labels)
      ? raw.labels.map((e: { label: string; slug: string | null }) => [e.label, e.slug])
      : Object.entries(raw.labels ?? raw.mapping ?? raw);
  return new Map(entries.map(([label, slug]) => [normalizeLabel(label), { raw: label, slug }]));
}

export async function syncVocabulary(client: Client, m: JurisdictionManifest, _slug: string): Promise<void> {
  if (!existsSync(resolve(VOCABULARY_DIR, 'uses.json'))) return;
  const terms = readTerms();
  // parents first, so the foreign key holds
  const ordered = [...terms].sort((a, b) => a.slug.split('.').length - b.slug.split('.').length);
  await client.query(
    `INSERT INTO use_term (slug, id, name, category, parent_slug, description)
     SELECT t.slug, t.id, t.name, t.category, t.parent, t.description
       FROM jsonb_to_recordset($1::jsonb) AS t(slug text, id text, name text, category text, parent text, description text)
     ON CONFLICT (slug) DO UPDATE SET name = EXCLUDED.name, category = EXCLUDED.category, parent_slug = EXCLUDED.parent_slug, description = EXCLUDED.description`,
    [JSON.stringify(ordered.map((t) => ({ ...t, id: stableId('use', t.slug), parent: t.parent ?? parentSlug(t.slug, terms), description: t.description ?? null })))],
  );
  if (!m.use_labels) return;
  const jurisdictionId = jurisdictionIdFor(fipsKey(m.jurisdiction).key);
  const labels = readLocalLabels(m.use_labels);
  const known = new Set(terms.map((t) => t.slug));
  await client.query(
    `INSERT INTO use_label (jurisdiction_id, label_normalized, label_raw, use_slug)
     SELECT $1, l.n, l.r, l.s FROM jsonb_to_recordset($2::jsonb) AS l(n text, r text, s text)
     ON CONFLICT (jurisdiction_id, label_normalized) DO UPDATE SET label_raw = EXCLUDED.label_raw, use_slug = EXCLUDED.use_slug`,
    [jurisdictionId, JSON.stringify([...labels].map(([n, v]) => ({ n, r: v.raw, s: v.slug && known.has(v.slug) ? v.slug : null })))],
  );
}

function parentSlug(slug: string, terms: Term[]): string | null {
  const parts = slug.split('.');
  for (let i = parts.length - 1; i > 0; i--) {
    const p = parts.slice(0, i).join('.');
    if (terms.some((t) => t.slug === p)) return p;
  }
  return null;
}
