// The document model every format is read into (ingest/ordinance/document.ts): sections from the
// numbering a document repeats, and tables as grids with spans resolved. On small inputs written to
// show one behaviour each, and on the four real ordinances in ../shared/real, whose expected values
// were read from the documents themselves (the Chicago text, the Ray County HTML, the Worcester PDF's
// pages), not from the parser's output.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { sharedDir } from '../../activities/fetch.ts';
import { readDocument } from '../../ingest/ordinance/document.ts';
import { parseOrdinance } from '../../ingest/ordinance/index.ts';
import { columnHeads, type DocLayout, type Grid, type GridRow } from '../../ingest/ordinance/model.ts';
import type { OrdinanceParse, ParseIssue } from '../../ingest/types.ts';
import { makeLayoutPdf, makePdf } from '../helpers/pdf.ts';

const bytes = (s: string) => new TextEncoder().encode(s);
const real = (p: string) => readFileSync(resolve(sharedDir(), 'real', p));
const squash = (s: string) => s.replace(/\s+/g, ' ').trim();
/** A row's texts, a spanned cell once. */
const texts = (r: GridRow) => r.cells.filter((c, i) => r.cells.indexOf(c) === i).map((c) => c.text);
const body = (g: Grid) => g.rows.filter((r) => !r.header);
const rowOf = (g: Grid, label: string) => body(g).find((r) => r.cells[0].text.startsWith(label)) as GridRow;

async function read(b: Uint8Array, mediaType: string): Promise<{ doc: DocLayout; parse: OrdinanceParse; issues: ParseIssue[] }> {
  const issues: ParseIssue[] = [];
  const doc = await readDocument(b, mediaType, issues);
  return { doc, parse: await parseOrdinance(b, { mediaType }), issues };
}

/** Every cell quotes the retained text: its span holds its text (white space squashed). */
function spansHold(doc: DocLayout) {
  for (const g of doc.tables)
    for (const r of g.rows)
      for (const c of r.cells) {
        if (!c.text) continue;
        const printed = c.parts ? c.parts.map((p) => doc.text.slice(p.start, p.end)).join(' ') : doc.text.slice(c.start, c.end);
        expect(squash(printed).replace(/\\\|/g, '|')).toBe(c.text);
      }
}

describe('HTML', () => {
  // one line, no h tags: headings are bold or centred paragraphs (a style sheet's classes), the
  // table has rowspan, colspan, a spacer row and markup nested in its cells
  const page =
    '<html><head><style>.b{font-weight:700}.n{font-weight:400}.c{text-align:center}</style></head><body>' +
    '<p class="c"><span class="b">Article 1 General</span></p><p><span class="b">1.1</span><span class="n"> </span><span class="b">Purpose</span></p><p>This is the zoning code.</p>' +
    '<p><span class="b">1.2 Districts</span></p><p>The districts are listed in the table below.</p>' +
    '<table><tr><td rowspan="2">Use</td><td colspan="2">Districts</td><td rowspan="2">Notes</td></tr><tr><td><b>R-1</b></td><td>R-2</td></tr>' +
    '<tr><td></td><td>&nbsp;</td><td> </td><td></td></tr>' +
    '<tr><td><p>Dwelling <span>unit</span></p></td><td>P</td><td><p>S</p></td><td rowspan="2">See <i>§ 4</i></td></tr>' +
    '<tr><td>Shop</td><td colspan="2">N</td></tr></table>' +
    '<p>P = Permitted; S = Special permit; N = Not permitted.</p><p>1. A numbered paragraph in plain type is a list item.</p>' +
    '<p class="c"><span class="b">Article 2 Uses</span></p><p class="b">2.1 Use table</p><p>Text.</p></body></html>';

  test('sections from bold and centred lines, numbered Article N and N.N; a plain numbered paragraph is not one', async () => {
    const { parse } = await read(bytes(page), 'text/html');
    expect(parse.sections.map((s) => [s.ref, s.heading, s.parent_ref])).toEqual([
      ['Article 1', 'General', null],
      ['1.1', 'Purpose', 'Article 1'],
      ['1.2', 'Districts', 'Article 1'],
      ['Article 2', 'Uses', null],
      ['2.1', 'Use table', 'Article 2'],
    ]);
  });

  test('a table with rowspan, colspan and a spacer row: every spanned cell known in each column it covers', async () => {
    const { doc } = await read(bytes(page), 'text/html');
    expect(doc.tables).toHaveLength(1);
    const g = doc.tables[0];
    expect(g.width).toBe(4);
    expect(g.rows.map((r) => r.header)).toEqual([true, true, false, false]); // the spacer row is gone
    expect(g.rows.map((r) => r.cells.map((c) => c.text))).toEqual([
      ['Use', 'Districts', 'Districts', 'Notes'],
      ['Use', 'R-1', 'R-2', 'Notes'],
      ['Dwelling unit', 'P', 'S', 'See § 4'],
      ['Shop', 'N', 'N', 'See § 4'],
    ]);
    expect(g.rows[0].cells[1]).toBe(g.rows[0].cells[2]); // one cell, two columns
    expect(g.rows[2].cells[3]).toBe(g.rows[3].cells[3]); // one cell, two rows
    expect(columnHeads(g)).toEqual([['Use'], ['Districts', 'R-1'], ['Districts', 'R-2'], ['Notes']]);
    expect(doc.text.slice(g.before[g.before.length - 1].start, g.before[g.before.length - 1].end)).toBe('The districts are listed in the table below.');
    expect(doc.text.slice(g.after[0].start, g.after[0].end)).toBe('P = Permitted; S = Special permit; N = Not permitted.');
    spansHold(doc);
  });

  test('a superscript is a footnote mark, never a digit of the figure before it (35<sup>2</sup> is 35 ft with note 2, not 352)', async () => {
    const html = `<html><body><h2>Section 4.1 Dimensional requirements</h2><p>The table sets the requirements of the R-1 and R-2 districts.</p>
      <table><tr><th>District</th><th>Minimum lot area (square feet)</th><th>Maximum height (feet)</th></tr>
      <tr><td>R-1</td><td>5,000<sup>1</sup></td><td>35<sup>2</sup></td></tr><tr><td>R-2</td><td>7,500</td><td>40<sup>(a)</sup></td></tr></table>
      <p><sup>1</sup> Except corner lots.</p><p><sup>2</sup> Or three stories.</p><p><sup>a</sup> Or the height of the tallest abutting building.</p>
      <h2>Section 4.2 Uses</h2><p>P = permitted. SP = special permit.</p>
      <table><tr><th>Use</th><th>R-1</th><th>R-2</th></tr><tr><td>Office on the 1<sup>st</sup> floor</td><td>SP<sup>1</sup></td><td>P</td></tr></table></body></html>`;
    const p = await parseOrdinance(Buffer.from(html), { mediaType: 'text/html', districtCodes: ['R-1', 'R-2'] });
    const of = (d: string, t: string) => p.controls.find((c) => c.district_code === d && c.control_type === t);
    expect(of('R-1', 'dimensional.height')).toMatchObject({ max: 35, value_text: '35²', conditions: 'Or three stories' });
    expect(of('R-1', 'dimensional.lot_area')).toMatchObject({ min: 5000, value_text: '5,000¹', conditions: 'Except corner lots' });
    expect(of('R-2', 'dimensional.height')).toMatchObject({ max: 40, value_text: '40[a]', conditions: 'Or the height of the tallest abutting building' });
    const office = p.permissions.find((x) => x.district_code === 'R-1');
    expect(office).toMatchObject({ use_label_raw: 'Office on the 1st floor', symbol: 'SP¹', level: 'conditional_use' });
    for (const c of [...p.controls, ...p.permissions]) expect(p.text.slice(c.citation.locator.start, c.citation.locator.end)).toBe(c.citation.quote);
  });
});

describe('plain text', () => {
  const municode = [
    'Sec. 17.20.010. - Purpose.',
    'The purpose of this chapter is to regulate uses.',
    'Sec. 17.20.020. - Uses.',
    'Uses are allowed as shown in Table 17.20.020.',
    'Table 17.20.020 Allowed Uses',
    'Use',
    'R-1',
    'R-2',
    'C-1',
    'Dwelling',
    'P',
    'P',
    '-',
    'Retail store',
    '-',
    'C',
    'P',
    'P = permitted; C = conditional use; - = not allowed.',
    'Sec. 17.20.030. - Standards.',
    'Standards apply.',
  ].join('\n\n');

  test('Municode numbering (Sec. 17.20.030. - Title.) and a table linearized one cell per block, counted by its header', async () => {
    const { doc, parse } = await read(bytes(municode), 'text/plain');
    expect(parse.sections.map((s) => [s.ref, s.heading])).toEqual([
      ['17.20.010', 'Purpose'],
      ['17.20.020', 'Uses'],
      ['17.20.030', 'Standards'],
    ]);
    expect(doc.tables).toHaveLength(1);
    const g = doc.tables[0];
    expect(g.ref).toBe('Table 17.20.020');
    expect(g.rows.map((r) => [r.header, ...r.cells.map((c) => c.text)])).toEqual([
      [true, 'Use', 'R-1', 'R-2', 'C-1'],
      [false, 'Dwelling', 'P', 'P', '-'],
      [false, 'Retail store', '-', 'C', 'P'],
    ]);
    expect(doc.text.slice(g.after[0].start, g.after[0].end)).toBe('P = permitted; C = conditional use; - = not allowed.');
    spansHold(doc);
  });

  test('columns aligned by runs of spaces; "Table 4.1" captions the table and is no section', async () => {
    const text = [
      'Section 4. Dimensional Regulations',
      '',
      'Table 4.1 Dimensional Requirements',
      '',
      'District    Min. Lot Area    Max. Height    Front Setback',
      'R-1         10,000 sq ft     35 ft          25 ft',
      'R-2          7,500 sq ft     35 ft          20 ft',
      'B-1         none             45 ft          0 ft',
      '',
      'Section 5. Signs',
      '',
      'No sign may flash.',
    ].join('\n');
    const { doc, parse } = await read(bytes(text), 'text/plain');
    expect(parse.sections.map((s) => [s.ref, s.heading])).toEqual([
      ['4', 'Dimensional Regulations'],
      ['5', 'Signs'],
    ]);
    expect(doc.tables).toHaveLength(1);
    const g = doc.tables[0];
    expect(g.ref).toBe('Table 4.1');
    expect(g.rows.map((r) => [r.header, ...r.cells.map((c) => c.text)])).toEqual([
      [true, 'District', 'Min. Lot Area', 'Max. Height', 'Front Setback'],
      [false, 'R-1', '10,000 sq ft', '35 ft', '25 ft'],
      [false, 'R-2', '7,500 sq ft', '35 ft', '20 ft'],
      [false, 'B-1', 'none', '45 ft', '0 ft'],
    ]);
    spansHold(doc);
  });

  test('cells separated by tabs, or by Word’s cell mark U+0007', async () => {
    for (const sep of ['\t', String.fromCharCode(7)]) {
      const text = `§ 200-1 Title.\n\nThis is the code.\n\n§ 200-8 Use regulations.\n\nUse${sep}R-1${sep}R-2\nDwelling${sep}P${sep}N\nShop${sep}${sep}P\n\nThe end.\n`;
      const { doc, parse } = await read(bytes(text), 'text/plain');
      expect(parse.sections.map((s) => [s.ref, s.heading])).toEqual([
        ['200-1', 'Title'],
        ['200-8', 'Use regulations'],
      ]);
      expect(doc.tables.map((g) => g.rows.map((r) => r.cells.map((c) => c.text)))).toEqual([
        [
          ['Use', 'R-1', 'R-2'],
          ['Dwelling', 'P', 'N'],
          ['Shop', '', 'P'],
        ],
      ]);
      spansHold(doc);
    }
  });

  test('Article with its title on the next line, Sections restarting in each: "Article II, Section 1"; Section 4.1 under Section 4', async () => {
    const text = [
      'ARTICLE I',
      'GENERAL PROVISIONS',
      '',
      'Section 1. Purpose',
      'The purpose is stated here.',
      '',
      'Section 2. Definitions',
      'Words mean what they say.',
      '',
      'ARTICLE II',
      'DISTRICTS',
      '',
      'Section 1. Establishment',
      'The town is divided into districts.',
      '',
      'Section 2. Zoning Map',
      'The map is on file.',
      '',
      'ARTICLE III',
      'USES',
      '',
      'Section 1. Table of Uses',
      'Uses are listed below.',
    ].join('\n');
    const { parse } = await read(bytes(text), 'text/plain');
    expect(parse.sections.map((s) => [s.ref, s.heading, s.parent_ref])).toEqual([
      ['Article I', 'GENERAL PROVISIONS', null],
      ['Article I, Section 1', 'Purpose', 'Article I'],
      ['Article I, Section 2', 'Definitions', 'Article I'],
      ['Article II', 'DISTRICTS', null],
      ['Article II, Section 1', 'Establishment', 'Article II'],
      ['Article II, Section 2', 'Zoning Map', 'Article II'],
      ['Article III', 'USES', null],
      ['Article III, Section 1', 'Table of Uses', 'Article III'],
    ]);
    const dotted = ['Section 4 Use Regulations', 'Uses follow.', '', 'Section 4.1 Permitted Uses', 'These.', '', 'Section 4.2 Special Permits', 'Those.', '', 'Section 5 Dimensions', 'Sizes.'].join('\n');
    const d = await read(bytes(dotted), 'text/plain');
    expect(d.parse.sections.map((s) => [s.ref, s.parent_ref])).toEqual([
      ['4', null],
      ['4.1', '4'],
      ['4.2', '4'],
      ['5', null],
    ]);
    // bare dotted numbers: depth by the number of groups; a cross-reference that wraps to a line start is not a heading
    const bare = ['3.1 Districts', 'The districts are these.', '', '3.1.16 Use Provisions', 'Uses are provided for in', '3.1.1 of this article, as amended.', '', '3.2 Zoning Map', 'The map.'].join('\n');
    const b = await read(bytes(bare), 'text/plain');
    expect(b.parse.sections.map((s) => [s.ref, s.heading, s.parent_ref])).toEqual([
      ['3.1', 'Districts', null],
      ['3.1.16', 'Use Provisions', '3.1'],
      ['3.2', 'Zoning Map', null],
    ]);
  });
});

describe('PDF', () => {
  test('a table laid out in columns over two pages: codes over two lines, numbered labels over several, the header repeated', async () => {
    const header = (): [number, number, string][] => [
      [200, 500, 'RS'],
      [250, 500, 'RS'],
      [300, 500, 'BG'],
      [202, 488, '10'],
      [253, 488, '7'],
      [303, 488, '2'],
    ];
    const row = (y: number, label: string[], marks: string[]): [number, number, string][] => [
      ...label.map((l, i): [number, number, string] => [50, y - i * 12, l]),
      ...marks.map((m, i): [number, number, string] => [200 + i * 50, y - (label.length - 1) * 6, m]),
    ];
    const pdf = makeLayoutPdf([
      [[50, 560, 'Section 4. Use Regulations'], [50, 530, 'TABLE 4.1 - PERMITTED USES'], ...header(), ...row(460, ['1. Dwelling, single-family'], ['Y', 'Y', 'N']), ...row(436, ['2. Lodging house for', 'more than four persons'], ['N', 'SP', 'Y']), [50, 380, 'Y - Yes; N - No; SP - Special Permit']],
      [[50, 530, 'GENERAL USE'], ...header(), ...row(460, ['3. Clinic'], ['N', 'Y', 'Y']), ...row(436, ['4. Heliport'], ['N', 'N', 'SP']), [50, 380, 'Y - Yes; N - No; SP - Special Permit'], [50, 340, 'Section 5. Dimensional Regulations'], [50, 320, 'Lots shall be large enough.']],
    ]);
    const { doc, parse } = await read(pdf, 'application/pdf');
    expect(parse.sections.map((s) => s.ref)).toEqual(['4', '5']);
    expect(doc.tables).toHaveLength(1);
    const g = doc.tables[0];
    expect(g.ref).toBe('TABLE 4.1');
    expect(columnHeads(g)).toEqual([[], ['RS 10'], ['RS 7'], ['BG 2']]);
    expect(body(g).map(texts)).toEqual([
      ['1. Dwelling, single-family', 'Y', 'Y', 'N'],
      ['2. Lodging house for more than four persons', 'N', 'SP', 'Y'],
      ['GENERAL USE'],
      ['3. Clinic', 'N', 'Y', 'Y'],
      ['4. Heliport', 'N', 'N', 'SP'],
    ]);
    expect(body(g).map((r) => r.page)).toEqual([1, 1, 2, 2, 2]);
    // the two-line label is one cell of two pieces of the page's text
    const two = rowOf(g, '2.').cells[0];
    expect(two.parts?.map((p) => doc.text.slice(p.start, p.end))).toEqual(['2. Lodging house for', 'more than four persons']);
  });

  test('a scanned PDF (no text layer) is the parse issue pdf_no_text_layer, and nothing else', async () => {
    const r = await parseOrdinance(makePdf([null]), { mediaType: 'application/pdf' });
    expect(r.issues.map((i) => i.code)).toEqual(['pdf_no_text_layer']);
    expect(r.sections).toEqual([]);
  });
});

describe('Chicago, Chapter 17-2 as captured from American Legal Publishing (text, one cell per block)', () => {
  let doc: DocLayout;
  let parse: OrdinanceParse;
  beforeAll(async () => {
    ({ doc, parse } = await read(real('chicago_il/chapter_17-02.txt'), 'text/plain'));
  }, 60_000);

  test('95 sections numbered 17-2-0100 … 17-2-0500-K, nested by the text’s own indentation; page chrome is no section', () => {
    expect(parse.sections).toHaveLength(95);
    const by = new Map(parse.sections.map((s) => [s.ref, s]));
    expect(parse.sections[0]).toMatchObject({ ref: '17-2-0100', heading: 'District descriptions', parent_ref: null });
    expect(parse.sections[parse.sections.length - 1]).toMatchObject({ ref: '17-2-0500-K', heading: 'Building Façades Facing Public Streets', parent_ref: '17-2-0500' });
    expect(by.get('17-2-0101')).toMatchObject({ heading: 'Generally', parent_ref: '17-2-0100' });
    expect(by.get('17-2-0104-B')).toMatchObject({ heading: 'RM4.5', parent_ref: '17-2-0104' });
    expect(by.get('17-2-0203.5')).toMatchObject({ heading: 'Planned Developments', parent_ref: '17-2-0200' });
    expect(by.get('17-2-0207')).toMatchObject({ heading: 'Use Table and Standards' });
    expect(by.get('17-2-0300')).toMatchObject({ heading: 'Bulk and density standards', parent_ref: null });
    expect(by.get('17-2-0401-A')?.heading).toBeNull();
    expect(by.get('17-2-0401-A')?.body).toMatch(/^To avoid the appearance of blank walls/);
    expect(parse.sections.filter((s) => s.parent_ref === null).map((s) => s.ref)).toEqual(['17-2-0100', '17-2-0200', '17-2-0300', '17-2-0400', '17-2-0500']);
    expect(parse.issues.filter((i) => i.code === 'section_ref_duplicate')).toEqual([]);
  });

  test('15 tables: the use table and 14 district tables', () => {
    expect(doc.tables).toHaveLength(15);
    spansHold(doc);
  });

  test('the use table (17-2-0207): 12 columns, 3 header rows, empty cells the capture dropped placed by their column', () => {
    const g = doc.tables[0];
    expect(g.width).toBe(12);
    const heads = g.rows.filter((r) => r.header);
    expect(heads.map(texts)).toEqual([
      ['USE GROUP', 'Zoning Districts', 'Use Standard', 'Parking Standard'],
      ['Use Category', 'RS', 'RS', 'RS', 'RT', 'RT', 'RM', 'RM', 'RM', 'Use Standard', 'Parking Standard'], // spanned down from the row above
      ['Specific Use Type', '1', '2', '3', '3.5', '4', '4.5', '5-5.5', '6-6.5', expect.stringMatching(/^P= permitted by-right S = special use/)],
    ]);
    // 49 uses with marks and 13 category rows (RESIDENTIAL, A. Household Living, … ACCESSORY)
    expect(body(g)).toHaveLength(62);
    expect(body(g).filter((r) => r.cells[0].colspan === 12).map((r) => r.cells[0].text)).toEqual([
      'RESIDENTIAL',
      'A. Household Living',
      'B. Group Living',
      'PUBLIC AND CIVIC',
      'I. Public Safety Services',
      'COMMERCIAL',
      '*O. Funeral and Interment Service',
      'P. Lodging',
      'Q. Medical Service',
      'R. Office',
      'OTHER USES',
      'U. Wireless Communication Facilities',
      'ACCESSORY',
    ]);
    expect(texts(body(g)[2])).toEqual(['1.', 'Detached House', 'P', 'P', 'P', 'P/-', 'P/-', 'P/-', 'P/-', 'P/-', '§ 17-2-0303-B', '§ 17-10-0207-A']);
    const parking = body(g).find((r) => r.cells[0].text === 'S. Parking, Non-Accessory') as GridRow;
    expect(texts(parking)).toEqual(['S. Parking, Non-Accessory', '-', '-', '-', '-', 'P/S', 'P/S', 'P/S', 'P/S', '§ 17-9-0111.5', "None Req'd"]);
    // Elderly Housing prints one standard: a parking standard, placed under the column that prints its kind
    const elderly = body(g).find((r) => r.cells[1].text === 'Elderly Housing') as GridRow;
    expect(elderly.cells.map((c) => c.text).slice(10)).toEqual(['', '§ 17-10-0207-A']);
    // the editor's note inside the table is a note, not a row
    expect(g.notes.some((n) => doc.text.slice(n.start, n.end).startsWith('* Editor'))).toBe(true);
  });

  test('district tables: two and three columns, a repeated header, cells holding several labelled values', () => {
    const perUnit = doc.tables.find((g) => texts(g.rows[0])[1]?.startsWith('Minimum Lot Area per Unit')) as Grid;
    expect(body(perUnit).map((r) => r.cells[0].text)).toEqual(['RS1', 'RS2', 'RS3', 'RT3.5', 'RT4', 'RM4.5', 'RM5', 'RM5.5', 'RM6', 'RM6.5']);
    expect(rowOf(perUnit, 'RT4').cells[1].text).toBe('Dwelling units: 1,000 Efficiency units: 1,000 SRO units: 500');
    expect(perUnit.notes).toHaveLength(1); // the header printed twice
    const openSpace = doc.tables.find((g) => g.width === 3) as Grid;
    expect(texts(openSpace.rows[0])).toEqual(['District', 'Minimum Rear Yard Open Space (square feet per dwelling unit/% of lot area, whichever is greater)', 'Diameter (in feet) of a Circle That Must Fit Within Rear Yard Open Space']);
    expect(body(openSpace).map(texts)).toEqual([
      ['RS1', '400/6.5', '20'],
      ['RS2', '400/6.5', '20'],
      ['RS3', '225/6.5', '15'],
      ['RT3.5', '100/6.5', '12'],
      ['RT4', '65/6.5', '12'],
      ['RM4.5', '50/6.5', '10'],
      ['RM5', '36/5.25', '10'],
    ]);
  });
});

describe('Ray County, MO: a Word document exported as HTML on one line', () => {
  let doc: DocLayout;
  let parse: OrdinanceParse;
  beforeAll(async () => {
    ({ doc, parse } = await read(real('ray_county_mo/ray-county-zoning-2005.html'), 'text/html'));
  }, 60_000);

  test('sections from its bold headings: Article 10 … 150, 10.1 …, lettered and numbered parts cited as the code cites them (30.11D4)', () => {
    const articles = parse.sections.filter((s) => s.parent_ref === null && s.ref.startsWith('Article'));
    expect(articles.map((s) => s.ref)).toEqual([10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150].map((n) => `Article ${n}`));
    const by = new Map(parse.sections.map((s) => [s.ref, s]));
    expect(by.get('Article 60')?.heading).toBe('Use Regulations');
    expect(by.get('60.1')).toMatchObject({ heading: 'Use Table', parent_ref: 'Article 60' });
    expect(by.get('70.1')).toMatchObject({ heading: 'Density and Dimensional Standards Table', parent_ref: 'Article 70' });
    expect(parse.sections.filter((s) => s.parent_ref === 'Article 40').map((s) => s.ref)).toEqual(Array.from({ length: 15 }, (_, i) => `40.${i + 1}`));
    expect(by.get('40.10')?.heading).toBe('S & O Service & Office District');
    expect(by.get('30.11D')?.parent_ref).toBe('30.11');
    expect(by.get('30.11D4')?.parent_ref).toBe('30.11D');
    // the table of contents (plain paragraphs with page numbers) is not read as sections
    expect(parse.sections[0]).toMatchObject({ ref: 'Article 10', heading: 'Introductory Provisions' });
  });

  test('74 tables, every cell quoting the retained text', () => {
    expect(doc.tables).toHaveLength(74);
    spansHold(doc);
  });

  test('the Article 60 use table: colspans resolved, the empty last row dropped, marks under their district', () => {
    const g = doc.tables.find((t) => texts(t.rows[0]).includes('ZONING DISTRICT USE STANDARDS')) as Grid;
    expect(g.width).toBe(17);
    expect(texts(g.rows[1])).toEqual(['', 'R-A', 'R-1', 'R-1A', 'R-1B', 'R-2', 'R-3', 'R-MHP', 'S &O', 'B-1', 'B-2', 'I-1', 'I-2', 'OP', 'Reference']);
    expect(body(g)).toHaveLength(40); // 43 rows printed, two of them header, the last one empty
    const heads = columnHeads(g).map((h) => h[h.length - 1]);
    const at = (label: string) => {
      const r = rowOf(g, label);
      return Object.fromEntries(heads.map((h, i) => [h, r.cells[i].text]).filter(([h, t], i) => i > 0 && t && h));
    };
    expect(at('Congregate Living')).toEqual({ 'B-1': 'C', 'B-2': 'P' });
    expect(at('House, Attached')).toEqual({ 'R-2': 'P', 'R-3': 'P', 'S &O': 'P', Reference: '60.2H' });
    // a row Word drew on a grid of its own (C over three columns) is read cell by cell
    expect(at('Utility Service, Major')).toEqual({ 'R-A': 'C', 'R-1': 'C', 'R-1A': 'C', 'R-1B': 'C', 'R-2': 'C', 'R-3': 'C', 'R-MHP': 'C', 'S &O': 'C', 'B-1': 'C', 'B-2': 'C', 'I-1': 'C', 'I-2': 'P', OP: 'C' });
    expect(parse.sections.find((s) => s.ref === '60.1')?.body).toContain('ZONING DISTRICT USE STANDARDS');
  });

  test('the Article 70 dimensional table: districts as columns, a group label across two columns, bracketed notes kept', () => {
    const g = doc.tables.find((t) => t.rows.some((r) => r.cells[0].text === 'Principal/Access [1]')) as Grid;
    expect(texts(g.rows[0])).toEqual(['', 'R-A', 'R-1', 'R-1A', 'R-1B', 'R-2', 'R-3', 'S&O', 'B-1', 'B-2', 'I-1', 'I-2']);
    expect(texts(rowOf(g, 'House'))).toEqual(['House', '19 Ac.', '9 Ac.', '3 Ac.', '12,000', '8,000', '8,000', '[4]', 'N/A', 'N/A', 'N/A', 'N/A']);
    expect(texts(rowOf(g, 'Principal/Access'))).toEqual(['Principal/Access [1]', '40/30', '40/30', '40/30', '35/30', '35/30', '40/20', '35/35', '40/40', '40/40', '45/45', '45/45']);
    expect(rowOf(g, 'Minimum Lot Area').cells[0].colspan).toBe(2);
    expect(body(g)).toHaveLength(17);
  });
});

describe('Worcester, MA: the city’s PDF, encrypted with an empty user password', () => {
  let doc: DocLayout;
  let parse: OrdinanceParse;
  let issues: ParseIssue[];
  const file = real('worcester_ma/worcester-zoning-ordinance.pdf');
  beforeAll(async () => {
    ({ doc, parse, issues } = await read(file, 'application/pdf'));
  }, 240_000);

  test('it is encrypted, and read all the same: 235 pages of text', () => {
    expect(Buffer.from(file).includes('/Encrypt')).toBe(true);
    expect(issues.filter((i) => i.severity === 'error')).toEqual([]);
    expect(doc.pageStarts).toHaveLength(235);
  });

  test('108 sections: ARTICLE I … XVII and their Sections, restarting in each Article; the contents pages are not sections', () => {
    expect(parse.sections).toHaveLength(108);
    const articles = parse.sections.filter((s) => s.parent_ref === null);
    expect(articles.map((s) => s.ref)).toEqual(['I', 'II', 'III', 'IV', 'V', 'VI', 'VII', 'VIII', 'IX', 'X', 'XI', 'XII', 'XIII', 'XIV', 'XV', 'XVI', 'XVII'].map((n) => `Article ${n}`));
    const by = new Map(parse.sections.map((s) => [s.ref, s]));
    expect(by.get('Article IV')?.heading).toBe('USE REGULATIONS');
    expect(by.get('Article IV, Section 2')).toMatchObject({ heading: 'Permitted Uses', parent_ref: 'Article IV' });
    expect(by.get('Article IV, Section 2')?.citation.locator.page).toBe(35);
    expect(by.get('Article IV, Section 4')?.heading).toBe('Dimensional Controls');
    expect(parse.sections.filter((s) => s.parent_ref === 'Article IV')).toHaveLength(16);
    expect(parse.sections[0].citation.locator.page).toBeGreaterThan(5); // after the contents (pages 2–5)
  });

  test('Table 4.1 is one table over its eight pages: codes over two lines joined, the header repeated per page dropped, group labels kept', () => {
    const g = doc.tables.find((t) => t.ref === 'TABLE 4.1') as Grid;
    expect(g.width).toBe(22);
    expect(columnHeads(g).slice(1).map((h) => h.join(' '))).toEqual(['RS 10', 'RS 7', 'RL 7', 'RG 5', 'BO 1', 'BO 2', 'BL 1', 'BG 2', 'BG 3', 'BG 4', 'BG 6', 'ML 0.5', 'ML 1', 'ML 2', 'MG 0.5', 'MG 1', 'MG 2', 'IP 0.33', 'IN S', 'IN H', 'A 1']);
    expect(g.rows.filter((r) => r.header)).toHaveLength(1);
    // 18 residential, 30 general, 39 business and 16 manufacturing uses, and 7 group labels
    expect(body(g)).toHaveLength(110);
    expect(body(g).filter((r) => r.cells[0].colspan === 22).map((r) => r.cells[0].text)).toEqual([
      'GENERAL USE',
      'GENERAL USE - Continued',
      'BUSINESS USES',
      'BUSINESS USES - Continued',
      'BUSINESS USES - Continued',
      'MANUFACTURING USE',
      'MANUFACTURING USE - Continued',
    ]);
    expect(new Set(body(g).map((r) => r.page))).toEqual(new Set([36, 37, 38, 39, 40, 41, 42, 43]));
    expect(texts(rowOf(g, '13. Single-family detached'))).toEqual(['13. Single-family detached dwelling', ...'Y Y Y Y Y Y Y Y Y Y N N N N N N N N Y Y N'.split(' ')]);
    expect(texts(rowOf(g, '7. Limited Residential'))).toEqual(['7. Limited Residential Hospice House', ...'SP SP SP SP N SP N N N N N N N N N N N N N N N'.split(' ')]);
    expect(texts(rowOf(g, '31, Registered'))).toEqual([
      '31, Registered Marijuana Dispensary without cultivation and within 300 feet of a residential district (See, Notes to Table 4.1, Note 13)',
      ...'N N N N N N N SP SP SP SP Y Y Y SP SP SP N N Y Y'.split(' '),
    ]);
    // the legend under each page's part is not a row
    expect(body(g).some((r) => /Yes; N/.test(r.cells[0].text))).toBe(false);
    spansHold(doc);
  });

  test('Table 4.2, first page: districts and merged cells printed once between the rows they cover, placed by the borders the page draws', () => {
    const g = doc.tables.find((t) => t.ref === 'TABLE 4. 2') as Grid;
    const rs10 = body(g).filter((r) => r.cells[0].text === 'RS-10');
    expect(rs10.map((r) => r.cells[1].text)).toEqual(['Single-family detached', 'Limited Residential Hospice House', 'Other permitted']);
    expect(rs10[0].cells[0]).toBe(rs10[2].cells[0]);
    // the heights (2+, 35) are one merged cell over all three uses (page 47)
    expect(texts(rs10[2]).slice(1)).toEqual(['Other permitted', '10,000', '80', '25', '20', '50', '2+', '35', '0.3 to 1']);
    expect(rs10[0].cells[7]).toBe(rs10[2].cells[7]);
    // front, side and rear setbacks printed once between the first two rows
    expect(rs10[0].cells.slice(4, 7).map((c) => c.text)).toEqual(['25', '10', '20']);
    expect(rs10[0].cells[4]).toBe(rs10[1].cells[4]);
  });

  test('Table 5.1: two columns, numbered categories', () => {
    const g = doc.tables.find((t) => t.ref === 'TABLE 5.1') as Grid;
    expect(texts(g.rows[0])).toEqual(['CATEGORY', 'SCALE']);
    expect(body(g).slice(0, 5).map(texts)).toEqual([
      ['1. Residential', '5 or More Dwelling Units (DU)'],
      ['2. Manufacturing', '20,000 sq. ft.'],
      ['3. Business', '10,000 sq. ft.'],
      ['4. General', '15,000 sq. ft.'],
      ['5. Slope*', '15% or greater'],
    ]);
  });
});
