// Would a proposal be allowed here: each proposed use against the binding permissions (or the
// code's rule for unlisted uses, or a moratorium), each proposed dimension against the binding
// controls, rule by rule, with citations. What cannot be decided is indeterminate, with why.

export interface Proposal {
  uses: string[];
  buildingType: string | null;
  dimensions: Record<string, { value: number; unit: string }>;
}

const TO_BASE: Record<string, [string, number]> = {
  ft: ['length', 1], feet: ['length', 1], m: ['length', 3.280839895], meters: ['length', 3.280839895],
  sq_ft: ['area', 1], m2: ['area', 10.763910417], acres: ['area', 43_560],
  percent: ['share', 1], ratio: ['ratio', 1], stories: ['stories', 1], units: ['units', 1], units_per_acre: ['density', 1],
};

/** The value in the control's unit, or null when the units do not measure the same thing. */
export function convert(value: number, from: string, to: string): number | null {
  const a = TO_BASE[from];
  const b = TO_BASE[to];
  if (!a || !b || a[0] !== b[0]) return null;
  return (value * a[1]) / b[1];
}

type Json = Record<string, any>;

function checkControl(c: Json, proposed: { value: number; unit: string }) {
  const base = { control_type: c.control_type, building_type: c.building_type, proposed, required: c.value, value_text: c.value_text, citation: c.citation, district: c.district };
  if (c.status === 'conflicting') return { ...base, outcome: 'indeterminate', reason: 'the districts reaching this place state conflicting values' };
  if (c.value.min === null && c.value.max === null) return { ...base, outcome: 'indeterminate', reason: `the code states no number here (${JSON.stringify(c.value_text)})` };
  const v = convert(proposed.value, proposed.unit, c.value.unit);
  if (v === null) return { ...base, outcome: 'indeterminate', reason: `${proposed.unit} cannot be compared with ${c.value.unit}` };
  const ok = (c.value.min === null || v >= c.value.min) && (c.value.max === null || v <= c.value.max);
  return { ...base, outcome: ok ? 'complies' : 'violates', reason: ok ? null : `${proposed.value} ${proposed.unit} is outside ${c.value.min ?? '…'}–${c.value.max ?? '…'} ${c.value.unit}` };
}

const PERMIT: Record<string, string> = { by_right: 'allowed', permitted_with_standards: 'allowed', administrative_approval: 'allowed_with_process', conditional_use: 'allowed_with_process', prohibited: 'not_allowed', unknown: 'indeterminate' };

export function assess(rule: Json, p: Proposal) {
  const checks: Json[] = [];
  for (const share of rule.share ?? []) {
    for (const use of p.uses) {
      const hit = share.permission.find((x: Json) => x.use?.slug === use || (x.use?.slug && use.startsWith(`${x.use.slug}.`)));
      const paused = (rule.moratorium ?? []).find((m: Json) => (m.uses ?? []).some((u: string) => use === u || use.startsWith(`${u}.`)));
      if (paused) checks.push({ kind: 'use', use, district: share.district.code, outcome: 'not_allowed', reason: `paused by moratorium “${paused.title}” until ${paused.effective_through ?? 'further notice'}`, citation: paused.citation });
      else if (hit) checks.push({ kind: 'use', use, district: share.district.code, outcome: PERMIT[hit.level] ?? 'indeterminate', level: hit.level, symbol: hit.symbol, process: hit.process, conditions: hit.conditions, citation: hit.citation });
      else if (rule.unlisted_uses) {
        const r = rule.unlisted_uses.result;
        checks.push({ kind: 'use', use, district: share.district.code, outcome: r === 'prohibited' ? 'not_allowed' : r === 'permitted' ? 'allowed' : r === 'conditional' ? 'allowed_with_process' : 'indeterminate', reason: 'the use tables do not name this use; the code’s rule for unlisted uses applies', citation: rule.unlisted_uses.citation });
      } else checks.push({ kind: 'use', use, district: share.district.code, outcome: 'indeterminate', reason: 'the code held here does not name this use and states no rule for unlisted uses' });
    }
    for (const [type, proposed] of Object.entries(p.dimensions)) {
      const controls = share.control.filter((c: Json) => c.control_type === type && (!p.buildingType || !c.building_type || c.building_type === p.buildingType));
      if (controls.length === 0) checks.push({ kind: 'dimension', control_type: type, district: share.district.code, proposed, outcome: 'indeterminate', reason: 'no control of this type is held for this district' });
      for (const c of controls) checks.push({ kind: 'dimension', ...checkControl(c, proposed) });
    }
  }
  const outcomes = checks.map((c) => c.outcome);
  const overall = outcomes.includes('not_allowed') || outcomes.includes('violates')
    ? 'not_allowed'
    : outcomes.includes('indeterminate') || outcomes.length === 0
      ? 'indeterminate'
      : outcomes.includes('allowed_with_process')
        ? 'allowed_with_process'
        : 'allowed';
  return { outcome: overall, check: checks };
}
