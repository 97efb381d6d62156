// The classifications pending amendments would make (/v1/zoning?legal_status=proposed): each
// instruction read from an amendment's own text is checked against the law held at as_of (the
// passage it strikes must be there, the cell it changes must state what it strikes) and only
// then shown as a change. Nothing is guessed: a boundary drawn on a plan not held is withheld.
import { ApiError } from '../../core/errors.ts';
import type { Queryable } from '../../store/db.ts';
import type { CitationView } from '../../store/evidence.ts';
import { controlsFor } from '../../store/place/law.ts';
import { resolveLocation, type Times } from '../../store/place/resolve.ts';
import { districtsByCode, instructionsKnown, sectionInForce } from '../../store/proposed.ts';

export interface PendingRef {
  id: string;
  number: string | null;
  title: string;
  status: string;
  introduced_on: string | null;
}

type Cite = (id: string | null) => ReturnType<typeof inlineOf> | null;
const inlineOf = (c: CitationView) => ({ id: c.id, section: c.section_ref, passage: c.quote, url: c.href, effective: c.effective_from });

export interface ProposedChange {
  field_path: string;
  current: unknown;
  proposed: unknown;
  withheld?: Array<{ field: string; reason: string }>;
  ordinance: { id: string; number: string | null; title: string; status: string };
  instruction: { ordinal: number; citation: unknown };
}

export interface InstructionView {
  ordinal: number;
  action: string;
  target: string;
  ref: string | null;
  state: 'applies' | 'text_only' | 'not_in_force_text' | 'not_held' | 'unread';
  detail: string;
  citation: unknown;
}

const num = (s: string | null) => {
  if (!s) return null;
  const n = Number(s.replace(/,/g, ''));
  return Number.isFinite(n) && /\d/.test(s) ? n : null;
};

/** Proposed changes by district id, and each pending ordinance's instructions with what became of them. */
export async function proposedChanges(db: Queryable, jurisdictionId: string, t: Times, pending: PendingRef[], cite: (ids: string[]) => Promise<Cite>) {
  const { rows, read } = await instructionsKnown(db, pending.map((p) => p.id), t);
  const c = await cite(rows.map((r) => r.citation_id));
  const codes = rows.flatMap((r) => [r.row_code, r.from_code, r.to_code]).filter((x): x is string => Boolean(x));
  const districts = await districtsByCode(db, jurisdictionId, codes, t);
  const byDistrict = new Map<string, ProposedChange[]>();
  const views = new Map<string, InstructionView[]>();
  const add = (districtId: string, change: ProposedChange) => byDistrict.set(districtId, [...(byDistrict.get(districtId) ?? []), change]);
  for (const r of rows) {
    const o = pending.find((p) => p.id === r.ordinance_id)!;
    const ord = { id: o.id, number: o.number, title: o.title, status: o.status };
    const instruction = { ordinal: r.ordinal, citation: c(r.citation_id) };
    const view = (state: InstructionView['state'], detail: string) =>
      views.set(r.ordinance_id, [...(views.get(r.ordinance_id) ?? []), { ordinal: r.ordinal, action: r.action, target: r.target, ref: r.ref, state, detail, citation: instruction.citation }]);
    if (r.action === 'unread') {
      view('unread', `Not read: the sentence ${r.reason ?? 'gives no instruction Landlex reads'}.`);
      continue;
    }
    if (r.action === 'rezone') {
      const from = districts.get(r.from_code!.toUpperCase());
      const to = districts.get(r.to_code!.toUpperCase());
      if (!from || !to) {
        view('not_held', `${[!from ? r.from_code : null, !to ? r.to_code : null].filter(Boolean).join(' and ')} is not a district in force on ${t.asOf} in what Landlex holds.`);
        continue;
      }
      const parcels = r.address ? await landParcels(db, jurisdictionId, r.address, t) : [];
      const reason = `The new boundary is drawn on a plan Landlex does not hold; the text describes the land as "${r.land ?? 'not described'}"${parcels.length ? ` (resolved to ${parcels.length === 1 ? 'parcel' : 'parcels'} ${parcels.join(', ')})` : ''}.`;
      const geometry = (change: 'adds' | 'loses', other: string) => ({
        field_path: 'geometry',
        current: null,
        proposed: { change, land: r.land, parcel: parcels, [change === 'adds' ? 'from' : 'to']: other },
        withheld: [{ field: 'geometry', reason }],
        ordinance: ord,
        instruction,
      });
      add(to.id, geometry('adds', r.from_code!));
      add(from.id, geometry('loses', r.to_code!));
      view('applies', `Land moves from ${r.from_code} to ${r.to_code} on the zoning map.`);
      continue;
    }
    if (r.target === 'table') {
      const d = r.row_code ? districts.get(r.row_code.toUpperCase()) : undefined;
      if (!d || !r.control_type) {
        view('not_held', !d ? `${r.row_code ?? 'The row'} is not a district in force on ${t.asOf} in what Landlex holds.` : `The column "${r.column_label}" is not a standard Landlex reads.`);
        continue;
      }
      const held = (await controlsFor(db, [d.id], t, [r.control_type])).filter((x) => !x.building_type && !x.qualifier);
      const struck = num(r.struck);
      const hit = held.find((x) => x.value_text.trim() === r.struck?.trim() || (struck !== null && (x.min === struck || x.max === struck)));
      if (!hit) {
        view('not_in_force_text', `Table ${r.ref}, row ${r.row_code}: the code in force on ${t.asOf} states ${held.map((x) => `"${x.value_text}"`).join(', ') || 'no value'} for ${r.control_type}, not "${r.struck}".`);
        continue;
      }
      const inserted = num(r.inserted);
      const bound = hit.min === struck ? 'min' : hit.max === struck ? 'max' : null;
      const value = { min: hit.min, max: hit.max, unit: hit.unit };
      add(d.id, {
        field_path: `standards.${r.control_type}`,
        current: { value, text: hit.value_text, citation: c(hit.citation_id) },
        proposed: { value: bound && inserted !== null ? { ...value, [bound]: inserted, unit: r.unit ?? hit.unit } : null, text: r.inserted },
        ...(bound && inserted !== null ? {} : { withheld: [{ field: 'value', reason: `"${r.inserted}" is not read as a number; the inserted text is given as printed.` }] }),
        ordinance: ord,
        instruction,
      });
      view('applies', `Table ${r.ref}, row ${r.row_code}: ${r.control_type} "${r.struck}" becomes "${r.inserted}".`);
      continue;
    }
    if (r.target === 'section' && r.ref) {
      const s = await sectionInForce(db, jurisdictionId, r.ref, t);
      if (!s) view('not_held', `Section ${r.ref} is not held in the code in force on ${t.asOf}.`);
      else if (!r.struck || !s.body.includes(r.struck)) view('not_in_force_text', `Section ${r.ref} as in force on ${t.asOf} does not contain "${r.struck}".`);
      else view('text_only', `Section ${r.ref}${s.heading ? ` (${s.heading})` : ''}: "${r.struck}" becomes "${r.inserted}"; Landlex reads no district's classification from this passage, so no classification changes.`);
      continue;
    }
    view('not_held', 'The instruction names no section, table or map Landlex holds.');
  }
  return { byDistrict, views, read };
}

async function landParcels(db: Queryable, jurisdictionId: string, address: string, t: Times): Promise<string[]> {
  try {
    const r = await resolveLocation(db, { address, within: { ids: [jurisdictionId], label: 'the jurisdiction' } }, t);
    return r.state === 'resolved' ? r.parcels.map((p) => p.id) : [];
  } catch (err) {
    // an address the parcels held do not match resolves to none: the land stays as described
    if (err instanceof ApiError) return [];
    throw err;
  }
}
