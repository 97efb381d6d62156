// Overlays composed with a base district into one binding answer per cell. A cell is a control
// (type, building type, qualifier) or a use. An overlay that states a cell supersedes the base;
// the losing values are kept with the reason. Two overlays that disagree, with no precedence
// stated, leave the cell conflicting: no binding value is chosen for them. A silent cell
// (status withheld: blank in the table, no rule for blanks) never supersedes a stated one.

export interface Stated {
  district_id: string;
  district_code: string;
  kind: 'base' | 'overlay';
  precedence_rank: number | null;
  value: Record<string, unknown>;
  same: string; // what must be equal for two statements to agree
}

export interface Composed {
  cell: string;
  binding: Stated | null;
  status: 'stated' | 'conflicting';
  losing: Array<{ statement: Stated; reason: string }>;
}

export function compose(cells: Map<string, Stated[]>): Composed[] {
  const out: Composed[] = [];
  for (const [cell, all] of cells) {
    // a cell a district leaves silent (held `withheld`) gives way to any district that states it
    const speaking = all.filter((s) => s.value.status !== 'withheld');
    const stated = speaking.length > 0 ? speaking : all;
    const overlays = stated.filter((s) => s.kind === 'overlay');
    const bases = stated.filter((s) => s.kind === 'base');
    if (overlays.length === 0) {
      out.push({ cell, binding: bases[0] ?? null, status: bases.length > 1 && new Set(bases.map((b) => b.same)).size > 1 ? 'conflicting' : 'stated', losing: bases.slice(1).map((b) => ({ statement: b, reason: 'stated twice by the base district' })) });
      continue;
    }
    const ranked = [...overlays].sort((a, b) => (a.precedence_rank ?? Number.MAX_SAFE_INTEGER) - (b.precedence_rank ?? Number.MAX_SAFE_INTEGER));
    const agree = new Set(overlays.map((o) => o.same)).size === 1;
    const decided = agree || (ranked[0].precedence_rank !== null && ranked[0].precedence_rank !== ranked[1]?.precedence_rank);
    const winner = decided ? ranked[0] : null;
    const losing = [
      ...bases.map((b) => ({ statement: b, reason: `superseded by overlay ${winner?.district_code ?? overlays.map((o) => o.district_code).join(', ')}, which states this cell` })),
      ...overlays.filter((o) => o !== winner).map((o) => ({ statement: o, reason: winner ? `overlay ${winner.district_code} takes precedence (rank ${winner.precedence_rank ?? 'equal value'})` : 'overlays disagree and the code states no precedence between them' })),
    ];
    out.push({ cell, binding: winner, status: decided ? 'stated' : 'conflicting', losing });
  }
  return out;
}
