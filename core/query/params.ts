// Parameter definitions to spread into a route's `params`: the collection parameters of spec
// 4.0.5 for one resource, and the time parameters of spec 4.0.2.
import { invalid } from '../errors.ts';
import { parseTimeText } from '../time.ts';
import type { Param } from './param.ts';
import { OPERATORS, filterFields, parseFilter } from './filter.ts';
import { DEFAULT_SIZE, MAX_SIZE } from './query.ts';
import type { ResourceDef } from './resource.ts';
import { MAX_SORT_FIELDS, parseSort, sortFields } from './sort.ts';

const one = (raw: string[], name: string) => {
  if (raw.length > 1) throw invalid(name, `${name} was given ${raw.length} times; it takes one value`);
  return raw[0];
};

export function collectionParams(def: ResourceDef, opts: { includeUnknown?: boolean } = {}): Param[] {
  const params: Param[] = [
    { name: 'cursor', in: 'query', type: 'string', description: 'next_cursor of the previous page; send the same other parameters.' },
    { name: 'size', in: 'query', type: 'integer', min: 1, max: MAX_SIZE, default: DEFAULT_SIZE, description: `Items per page, 1 to ${MAX_SIZE}.` },
    { name: 'total', in: 'query', type: 'boolean', default: false, description: 'Count the matches (first page only; gte above 10,000).' },
    {
      name: 'sort',
      in: 'query',
      type: 'string',
      description: `Up to ${MAX_SORT_FIELDS} of ${sortFields(def).join(', ')}, comma-separated; - reverses. Default ${def.defaultSort}. NULLs last.`,
      parse: (raw, name) => parseSort(def, one(raw, name), name),
    },
    {
      name: 'filter',
      in: 'query',
      type: 'string',
      prefix: true,
      description: `filter[<field>][<op>]=<value>. Fields: ${filterFields(def).join(', ')}. Operators: ${OPERATORS.join(', ')}.`,
      parse: (raw) => parseFilter(def, raw),
    },
    {
      name: 'filter_indeterminate',
      in: 'query',
      type: 'string',
      enum: ['include', 'exclude', 'only'],
      description: 'Rows a filter cannot evaluate: include (default, marked filter_outcome=indeterminate), exclude, or only them.',
    },
  ];
  if (opts.includeUnknown) {
    params.push({ name: 'include_unknown', in: 'query', type: 'boolean', description: 'false leaves out rows a filter cannot evaluate.' });
  }
  return params;
}

export function timeParams(): Param[] {
  const grammar = 'A date, a date-time with offset, from:<date> to:<date>, or last <n> days.';
  return [
    {
      name: 'as_of',
      in: 'query',
      type: 'string',
      description: `Valid time (the law in force then). Default now, in the jurisdiction's timezone. ${grammar}`,
      parse: (raw, name) => parseTimeText(one(raw, name), name),
    },
    {
      name: 'known_as_of',
      in: 'query',
      type: 'string',
      description: `Knowledge time (what the service knew then), UTC. Default now; a date means the end of that day. ${grammar}`,
      parse: (raw, name) => parseTimeText(one(raw, name), name),
    },
  ];
}
