// What an HTML element's markup says about emphasis: bold (b, strong, font-weight ≥ 600 inline or
// through a class of the document's own style sheet) and centring (text-align:center, align=center).
// Word and Google Docs exports put all of it in classes (".c8{font-weight:700}").

export interface StyleSheet {
  weight: Map<string, { bold: boolean; order: number }>;
  center: Set<string>;
}

const RULE = /\.([A-Za-z_][\w-]*)\s*\{([^}]*)\}/g;
const WEIGHT = /font-weight\s*:\s*(bold(?:er)?|normal|lighter|\d{3})/i;
const CENTER = /text-align\s*:\s*center/i;

export function readStyleSheets(css: string): StyleSheet {
  const weight = new Map<string, { bold: boolean; order: number }>();
  const center = new Set<string>();
  let order = 0;
  for (const m of css.matchAll(RULE)) {
    order++;
    const w = WEIGHT.exec(m[2]);
    if (w) weight.set(m[1], { bold: isBold(w[1]), order });
    if (CENTER.test(m[2])) center.add(m[1]);
    else if (/text-align\s*:/i.test(m[2])) center.delete(m[1]);
  }
  return { weight, center };
}

const isBold = (w: string) => /^bold/i.test(w) || (/^\d+$/.test(w) && Number(w) >= 600);

export const attr = (attrs: string, name: string): string | null => {
  const m = new RegExp(`\\b${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(attrs);
  return m ? (m[1] ?? m[2] ?? m[3] ?? '') : null;
};

const classes = (attrs: string) => (attr(attrs, 'class') ?? '').split(/\s+/).filter(Boolean);

/** true, false, or null when the element says nothing about weight. */
export function boldOf(tag: string, attrs: string, sheet: StyleSheet): boolean | null {
  const inline = WEIGHT.exec(attr(attrs, 'style') ?? '');
  if (inline) return isBold(inline[1]);
  let best: { bold: boolean; order: number } | null = null;
  for (const c of classes(attrs)) {
    const w = sheet.weight.get(c);
    if (w && (!best || w.order > best.order)) best = w;
  }
  if (best) return best.bold;
  return tag === 'b' || tag === 'strong' || /^h[1-6]$/.test(tag) ? true : null;
}

export function centeredOf(attrs: string, sheet: StyleSheet): boolean {
  if (CENTER.test(attr(attrs, 'style') ?? '')) return true;
  if ((attr(attrs, 'align') ?? '').toLowerCase() === 'center') return true;
  return classes(attrs).some((c) => sheet.center.has(c));
}
