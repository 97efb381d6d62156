// Records the parsers produce. Parsers are pure: bytes (and a manifest's settings) in, these out.
// Offsets are UTF-16 code-unit offsets into the parsed text (`ParsedText.text`), so that
// `text.slice(start, end) === quote` always holds.

export type PermissionLevel =
  | 'by_right'
  | 'permitted_with_standards'
  | 'administrative_approval'
  | 'conditional_use'
  | 'prohibited'
  | 'unknown' // a mark the legend does not explain, or no legend at all
  | 'indeterminate'; // a blank cell (or an undefined dash) where the code states no rule for one: OrdinanceParse.indeterminate

/** Where a quote sits in the version's text: precise enough to highlight it. */
export interface Locator {
  section?: string | null; // the code's section number, e.g. "3.1.16"
  heading?: string | null;
  table?: string | null; // e.g. "Table 3.1.16"
  row?: string | null; // the row's label as printed
  column?: string | null; // the column's header as printed
  line?: number; // 1-based line of `start`
  start: number; // offset of the quote in the text
  end: number; // offset just past the quote
  page?: number; // PDF page, 1-based
}

export interface CitationDraft {
  quote: string;
  locator: Locator;
  section_ref?: string | null;
}

/** The text a parser read, and the format it came in. */
export interface ParsedText {
  text: string;
  media_type: string;
}

export interface SectionRecord {
  ref: string; // e.g. "3.1.16"
  heading: string | null;
  parent_ref: string | null;
  depth: number;
  ordinal: number;
  body: string; // the section's own text (verbatim substring of the parsed text)
  citation: CitationDraft;
}

export interface DistrictRecord {
  kind: 'base' | 'overlay';
  code_raw: string;
  code_normalized: string;
  local_label: string | null;
  type: string | null;
  purpose: string | null;
  section_ref: string | null;
  citation: CitationDraft;
}

export interface PermissionRecord {
  district_code: string; // code_normalized of the district
  use_label_raw: string;
  use_label_normalized: string;
  symbol: string; // the code's own mark, as printed
  level: PermissionLevel;
  process: string | null;
  conditions: string | null; // footnotes and notes, verbatim
  table_ref: string | null;
  citation: CitationDraft;
  row_number?: string | null; // the row's number as printed ("1.", "4a.", "*10.", "C.")
  category?: string | null; // the category row above it
  /** a compound mark's parts ("P/-": P by_right, - prohibited); `level` is the first part's */
  parts?: Array<{ mark: string; level: PermissionLevel; meaning: string | null }>;
}

export interface ControlRecord {
  district_code: string;
  control_type: string; // dotted, e.g. dimensional.setback_front
  building_type: string | null;
  qualifier: string | null;
  min: number | null;
  max: number | null;
  unit: string | null; // ft, stories, sq_ft, percent, ratio, units_per_acre, ...
  value_text: string; // the cell as printed
  conditions: string | null;
  table_ref: string | null;
  citation: CitationDraft;
}

export interface UnlistedUseRecord {
  result: 'permitted' | 'conditional' | 'prohibited' | 'unknown';
  process: string | null;
  citation: CitationDraft;
}

/** A problem a parser met and did not hide: reported in the run summary and in coverage. */
export interface ParseIssue {
  severity: 'warning' | 'error';
  code: string; // e.g. table_columns_mismatch, value_unparsed, label_unmapped
  detail: string;
  locator?: Partial<Locator>;
}

/** How the text's districts compare with the codes the jurisdiction's map and list hold. */
export interface DistrictReport {
  /** whether the codes of a map or list were given to compare with */
  compared: boolean;
  /** codes the text establishes that no map or list holds (issue district_not_on_map) */
  not_on_map: string[];
  /** codes a map or list holds that the text never names, as they write them (issue district_only_on_map) */
  only_on_map: string[];
  /** what names each district of the text */
  evidence: Record<string, Array<'heading' | 'list' | 'use_table' | 'dimension_table' | 'map'>>;
}

export interface OrdinanceParse extends ParsedText {
  sections: SectionRecord[];
  districts: DistrictRecord[];
  permissions: PermissionRecord[];
  controls: ControlRecord[];
  unlisted_uses: UnlistedUseRecord | null;
  issues: ParseIssue[];
  /** use-table cells that state nothing the reader may hold (blank with no rule for blanks, a dash the key does not define): level `indeterminate`, kept apart from permissions */
  indeterminate?: PermissionRecord[];
  district_report?: DistrictReport;
}
