// Every answer a test receives from a Landlex server is checked against that server's own
// OpenAPI document (test/helpers/openapi-check.ts): fetch is wrapped for the whole suite, so the
// shared helpers (call, get) and the tests' own fetches are all checked. A loopback server that
// serves no /openapi.json (the synthetic town's site) is left alone. A failure names the
// operation, status and path, fails the call, and fails the test in afterEach even if the test
// swallowed the error.
import { afterEach } from 'vitest';
import { OpenApiChecker } from './openapi-check.ts';

const realFetch = globalThis.fetch;
const documents = new Map<string, Promise<OpenApiChecker | null>>();
const failures: string[] = [];

async function loadChecker(origin: string): Promise<OpenApiChecker | null> {
  try {
    const res = await realFetch(`${origin}/openapi.json`);
    if (res.status !== 200) return null;
    const doc = (await res.json()) as { openapi?: string; paths?: object };
    return typeof doc.openapi === 'string' && doc.openapi.startsWith('3.1') && doc.paths ? new OpenApiChecker(doc) : null;
  } catch {
    return null;
  }
}

function checkerFor(origin: string, fresh = false): Promise<OpenApiChecker | null> {
  let c = documents.get(origin);
  if (!c || fresh) {
    c = loadChecker(origin);
    documents.set(origin, c);
    // a server that could not be read is asked again next time
    c.then((x) => x === null && documents.delete(origin));
  }
  return c;
}

function requestOf(input: RequestInfo | URL, init?: RequestInit): { url: URL; method: string } {
  const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
  const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
  return { url, method };
}

const loopback = (url: URL) => ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname) && url.pathname !== '/openapi.json';

globalThis.fetch = async function checkedFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const res = await realFetch(input, init);
  const { url, method } = requestOf(input, init);
  if (!loopback(url)) return res;
  const contentType = res.headers.get('content-type');
  // an event stream never ends: its status and type are checked, its body left to the test
  const stream = /^text\/event-stream/i.test(contentType ?? '');
  const text = stream ? null : await res.clone().text();
  const answered = { method, path: url.pathname, status: res.status, contentType, text };
  let checker = await checkerFor(url.origin);
  if (!checker) return res;
  let problems = checker.check(answered);
  if (problems.length) {
    // a port reused by another server: read its document again before judging
    checker = await checkerFor(url.origin, true);
    problems = checker ? checker.check(answered) : [];
  }
  if (problems.length) {
    failures.push(...problems);
    throw new Error(`The answer is not as the API's OpenAPI document says: ${problems.join(' | ')}`);
  }
  return res;
};

afterEach(() => {
  if (failures.length === 0) return;
  const found = failures.splice(0);
  throw new Error(`Answers not as the OpenAPI document says:\n${found.join('\n')}`);
});
