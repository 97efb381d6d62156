// The ways a source can come back broken, applied to the synthetic town's site, and a fingerprint
// of what each source holds (to show nothing held was lost). Without `random`, each breakage is
// the fixed one the short fault test checks line by line; with it, where and how is drawn.
import type { Pool } from '../../store/db.ts';
import { makePdf } from '../helpers/pdf.ts';
import type { SiteFile, SyntheticSite } from '../helpers/synthetic-site.ts';

export interface Breakage {
  source: string;
  path: string;
  /** what the failure's reason says (null: the source loads, rejecting what it cannot read) */
  error: RegExp | null;
  apply(site: SyntheticSite): void;
}

/** A PDF of the planning board's rules: a code_text source read from its text layer. */
export const RULES_PDF = makePdf([
  ['Section 1. General', '1.1 Authority', 'These rules are adopted by the Millbrook Planning Board.', '1.2 Applicability', 'They apply to every application to the Board.'],
  ['Section 2. Site Plan Review', '2.1 Submittals', 'An applicant files six copies of the site plan.', '2.2 Hearing', 'The Board holds a hearing within 65 days.'],
  ['Section 3. Special Permits', '3.1 Criteria', 'The Board grants a special permit only on the findings of this section.'],
]);

/** A small seeded generator (mulberry32), so a long run can be repeated. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const cutAt = (bytes: Uint8Array, fraction: number) => bytes.subarray(0, Math.max(1, Math.floor(bytes.length * fraction)));

/** A roll's line broken one of three ways: three more fields, a quote never closed, a NUL byte. */
function breakLine(line: string, how: 'fields' | 'quote' | 'nul', at: number): string {
  const cells = line.split(',');
  if (how === 'fields') return `${line},X,Y,Z`;
  if (how === 'quote') return [...cells.slice(0, at), `"${cells[at]}`, ...cells.slice(at + 1)].join(',');
  const i = Math.min(line.length - 1, Math.max(1, at));
  return `${line.slice(0, i)}\u0000${line.slice(i)}`;
}

export function breakages(file: (version: 1 | 2, path: string) => SiteFile | null, random?: () => number): Breakage[] {
  const bytesOf = (path: string) => {
    const f = file(2, path);
    if (!f) throw new Error(`the site has no ${path}`);
    return new Uint8Array(f.bytes);
  };
  const r = random ?? (() => 0.5);
  const truncated = (source: string, path: string): Breakage => ({
    source,
    path,
    error: /^unreadable: (Failed to read GeoJSON data|Error opening dataset)/,
    apply: (site) => site.serve(path, cutAt(bytesOf(path), random ? 0.02 + 0.96 * r() : 0.5)),
  });
  const pdf = (): Uint8Array => {
    const b = Buffer.from(RULES_PDF);
    if (random && r() < 0.5) return cutAt(b, 0.05 + 0.9 * r());
    // at 0.6 the A run lands in a page object pdf.js fetched ahead: a rejection nobody awaits
    const from = Math.floor(b.length * (random ? 0.2 + 0.5 * r() : 0.6));
    b.fill(0x41, from, from + Math.floor(b.length * 0.2));
    return new Uint8Array(b);
  };
  const roll = (): string => {
    const lines = Buffer.from(bytesOf('/assessor/roll.csv')).toString('utf8').replace(/\n$/, '').split('\n');
    if (!random) {
      lines[4] = breakLine(lines[4], 'fields', 0); // account 1004: 33 fields
      lines[6] = breakLine(lines[6], 'quote', 22); // 1006: a quote before ZONING, closed by 1007's owner
      lines[10] = breakLine(lines[10], 'nul', lines[10].indexOf('MAIN')); // 1010: a NUL in LOCATION
    } else {
      const n = 1 + Math.floor(r() * 3);
      for (let k = 0; k < n; k++) {
        const i = 1 + Math.floor(r() * (lines.length - 1));
        const how = (['fields', 'quote', 'nul'] as const)[Math.floor(r() * 3)];
        lines[i] = breakLine(lines[i], how, how === 'quote' ? Math.floor(r() * 30) : Math.floor(r() * lines[i].length));
      }
    }
    return `${lines.join('\n')}\n`;
  };
  const html = (): Uint8Array => {
    const b = bytesOf('/code/zoning.html');
    const at = Math.floor(b.length * (random ? 0.05 + 0.9 * r() : 0.5));
    return new Uint8Array(Buffer.concat([b.subarray(0, at), Buffer.from([0]), b.subarray(at)]));
  };
  const feed = (): string => {
    const doc = JSON.parse(Buffer.from(bytesOf('/cases/feed.json')).toString('utf8')) as { cases: Array<{ description: string }> };
    const i = random ? Math.floor(r() * doc.cases.length) : 0;
    doc.cases[i].description += '\u0000'; // written by JSON.stringify as the escape \u0000
    return JSON.stringify(doc, null, 1);
  };
  return [
    truncated('zoning-map', '/gis/zoning.geojson'),
    truncated('parcels', '/gis/parcels.geojson'),
    { source: 'planning-rules', path: '/planning/rules.pdf', error: /^pdf_unreadable: the PDF could not be read: /, apply: (site) => site.serve('/planning/rules.pdf', pdf()) },
    { source: 'permits', path: '/permits/feed.json', error: /answered 500/, apply: (site) => site.fail('/permits/feed.json', 500) },
    { source: 'zoning-code', path: '/code/zoning.html', error: /^a NUL byte at line \d+, column \d+: /, apply: (site) => site.serve('/code/zoning.html', html()) },
    { source: 'assessor-roll', path: '/assessor/roll.csv', error: null, apply: (site) => site.serve('/assessor/roll.csv', roll()) },
    { source: 'cases', path: '/cases/feed.json', error: null, apply: (site) => site.serve('/cases/feed.json', feed()) },
  ];
}

/** Fact tables with a source, and the address index a roll builds. */
export const FACT_TABLES = ['section', 'district', 'permission', 'control', 'unlisted_use_rule', 'district_area', 'parcel', 'property', 'transaction', 'land_record', 'ordinance', 'moratorium', 'address_point'];

/** Per source key and table: how many rows are current knowledge, and which rows (by fact_id). */
export async function heldBySource(pool: Pool): Promise<Record<string, Record<string, string>>> {
  const out: Record<string, Record<string, string>> = {};
  for (const table of FACT_TABLES) {
    const sql =
      table === 'address_point'
        ? `SELECT s.key, count(*)::int AS n, md5(string_agg(f.normalized || '|' || f.raw || '|' || coalesce(f.property_id, '') || '|' || coalesce(f.parcel_id, ''), ',' ORDER BY f.normalized, f.raw)) AS fp
             FROM address_point f JOIN source s ON s.id = f.source GROUP BY s.key`
        : `SELECT s.key, count(*)::int AS n, md5(string_agg(f.fact_id::text, ',' ORDER BY f.fact_id)) AS fp
             FROM ${table} f JOIN source s ON s.id = f.source_id WHERE upper_inf(f.known) GROUP BY s.key`;
    for (const row of (await pool.query(sql)).rows) {
      out[row.key] ??= {};
      out[row.key][table] = `${row.n} ${row.fp}`;
    }
  }
  return out;
}
