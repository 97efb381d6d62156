// The short, fixed-seed run of the schema-driven fuzzer (the long one is npm run fuzz): every
// operation of /openapi.json, valid and hostile values, against a real server over the Cambridge
// data. Any 5xx, undocumented status, body off its schema or answer over 5 s fails the test.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type FuzzEnvironment, fuzzEnvironment } from './environment.ts';
import { runFuzz } from './runner.ts';

const SEED = 20261125;
const CASES = 1500;

let env: FuzzEnvironment;
beforeAll(async () => {
  env = await fuzzEnvironment();
}, 300_000);
afterAll(async () => {
  await env?.close();
});

test(`fuzz: ${CASES} cases of seed ${SEED} answer as documented, none 5xx, none slow`, async () => {
  const report = await runFuzz({ url: env.url, key: env.key, bearer: env.bearer, seed: SEED, cases: CASES, seconds: 45 });
  const lines = report.failures.map((f) => `case ${f.case} ${f.operation} ${f.status}: ${f.problem}\n  npm run fuzz -- --seed ${SEED} --case ${f.case}\n  ${f.curl}`);
  expect(lines, env.errors.slice(0, 5).join('\n')).toEqual([]);
  // every operation was asked, and the run was not cut short by its time bound
  expect(report.cases).toBe(CASES);
  expect(Object.keys(report.operations).length).toBeGreaterThanOrEqual(70);
}, 120_000);
