// npm run fuzz [-- --seed N --cases N --seconds N --concurrency N --case i,j]: the long fuzz run
// (default 10,000 cases) against a fresh server over the Cambridge data. Prints the seed first;
// each failure with a curl line and the command that reruns just that case. Exits 1 on any failure.
import { parseArgs } from 'node:util';
import { fuzzEnvironment } from './environment.ts';
import { type FuzzReport, runFuzz } from './runner.ts';

const { values } = parseArgs({
  options: {
    seed: { type: 'string' },
    cases: { type: 'string', default: '10000' },
    seconds: { type: 'string', default: '1800' },
    concurrency: { type: 'string', default: '4' },
    case: { type: 'string' },
    trace: { type: 'boolean', default: false },
  },
});
const seed = values.seed !== undefined ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31);
const only = values.case?.split(',').map(Number);
for (const [name, n] of [['seed', seed], ['cases', Number(values.cases)], ['seconds', Number(values.seconds)], ['concurrency', Number(values.concurrency)], ...(only ?? []).map((c) => ['case', c] as const)] as const) {
  if (!Number.isSafeInteger(n) || n < 0) {
    console.error(`--${name} takes a whole number, not ${JSON.stringify(n)}`);
    process.exit(2);
  }
}

console.log(`fuzz seed ${seed} (rerun with: npm run fuzz -- --seed ${seed})`);
const env = await fuzzEnvironment();
let report: FuzzReport;
try {
  report = await runFuzz({ url: env.url, key: env.key, bearer: env.bearer, seed, cases: Number(values.cases), seconds: Number(values.seconds), concurrency: Number(values.concurrency), only, trace: values.trace, log: (l) => console.log(l) });
} finally {
  await env.close();
}

console.log(`\nfuzz seed ${seed}: ${report.cases} cases, ${report.failures.length} failures, ${(report.ms / 1000).toFixed(1)} s, slowest answer ${report.slowestMs} ms`);
console.log(`statuses: ${Object.entries(report.statuses).map(([s, n]) => `${s}: ${n}`).join(', ')}`);
console.log(`operations: ${Object.keys(report.operations).length}`);
if (report.failures.length) {
  console.log('\ncurl lines read LANDLEX_URL, LANDLEX_KEY and LANDLEX_TOKEN (a server over the Cambridge data, its key and a console session).');
  const seen = new Set<string>();
  for (const f of report.failures) {
    const kind = `${f.operation} ${f.status} ${f.problem.slice(0, 80)}`;
    if (seen.has(kind)) continue;
    seen.add(kind);
    console.log(`\ncase ${f.case} ${f.operation} ${f.status}: ${f.problem}\n  npm run fuzz -- --seed ${seed} --case ${f.case}\n  ${f.curl}`);
  }
  if (env.errors.length) console.log(`\nserver errors:\n${env.errors.slice(0, 20).join('\n')}`);
}
process.exit(report.failures.length ? 1 : 0);
