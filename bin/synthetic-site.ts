// The synthetic town's public website (test/fixtures/synthetic-town) served on 127.0.0.1 (a
// random port unless one is given): the tests' loopback public web, and `landlex sample`'s third town. Two versions: v2 is the site after the amendments described in EXPECTED.md.
// A path is looked up in v<version>/, then common/. Answers carry a strong ETag (sha256 of the
// bytes) and Last-Modified (the date of the layer the file comes from), and honor
// If-None-Match / If-Modified-Since with 304. A path can be told to answer 404, 500 or hang, or
// to serve other bytes (a broken file) until healed.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SITE_ROOT = resolve(fileURLToPath(new URL('../test/fixtures/synthetic-town/', import.meta.url)));

export type SiteVersion = 1 | 2;
export type FailMode = 404 | 500 | 'hang';

export interface SiteFile {
  bytes: Buffer;
  etag: string;
  lastModified: string;
  contentType: string;
  layer: 'v1' | 'v2' | 'common' | 'root' | 'served';
}

export interface SiteRequest {
  method: string;
  path: string;
  status: number | 'hung';
  conditional: boolean;
}

export interface SyntheticSite {
  url: string;
  version(): SiteVersion;
  setVersion(v: SiteVersion): void;
  /** Make a path answer 404, 500, or never answer (until `heal` or `close`). */
  fail(path: string, mode: FailMode): void;
  /** Make a path answer these bytes (until `heal`), as a publisher serving a broken file would. */
  serve(path: string, bytes: Uint8Array | string, contentType?: string): void;
  heal(path?: string): void;
  requests: SiteRequest[];
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.geojson': 'application/geo+json',
  '.json': 'application/json',
  '.csv': 'text/csv; charset=utf-8',
  '.pdf': 'application/pdf',
};

const town = JSON.parse(readFileSync(join(SITE_ROOT, 'town.json'), 'utf8')) as {
  versions: Record<string, { last_modified: string }>;
  common_last_modified: string;
};

/** The file a path names in a version, or null. Exported so tests can compare bytes. */
export function siteFile(version: SiteVersion, path: string): SiteFile | null {
  const clean = normalize(decodeURIComponent(path.split('?')[0])).replace(/^(\.\.[/\\])+/, '');
  if (clean.includes('..')) return null;
  const rel = clean === '/' ? '/index.html' : clean;
  const candidates: Array<[SiteFile['layer'], string, string]> = [
    [`v${version}` as 'v1' | 'v2', join(SITE_ROOT, `v${version}`, rel), town.versions[String(version)].last_modified],
    ['common', join(SITE_ROOT, 'common', rel), town.common_last_modified],
  ];
  if (rel === '/town.json') candidates.unshift(['root', join(SITE_ROOT, 'town.json'), town.common_last_modified]);
  for (const [layer, file, lastModified] of candidates) {
    if (!file.startsWith(SITE_ROOT) || !existsSync(file) || !statSync(file).isFile()) continue;
    const bytes = readFileSync(file);
    const etag = `"${createHash('sha256').update(bytes).digest('hex').slice(0, 32)}"`;
    return { bytes, etag, lastModified, contentType: TYPES[extname(file)] ?? 'application/octet-stream', layer };
  }
  return null;
}

function notModified(req: IncomingMessage, f: SiteFile): boolean {
  const inm = req.headers['if-none-match'];
  if (inm) {
    const tags = inm.split(',').map((t) => t.trim().replace(/^W\//, ''));
    return tags.includes('*') || tags.includes(f.etag);
  }
  const ims = req.headers['if-modified-since'];
  if (ims) {
    const since = Date.parse(ims);
    return Number.isFinite(since) && Date.parse(f.lastModified) <= since;
  }
  return false;
}

export async function startSyntheticSite(opts: { version?: SiteVersion; port?: number } = {}): Promise<SyntheticSite> {
  let version: SiteVersion = opts.version ?? 1;
  const failures = new Map<string, FailMode>();
  const served = new Map<string, SiteFile>();
  const hung = new Map<string, ServerResponse[]>();
  const sockets = new Set<Socket>();
  const requests: SiteRequest[] = [];

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const conditional = Boolean(req.headers['if-none-match'] || req.headers['if-modified-since']);
    const log = (status: number | 'hung') => requests.push({ method: req.method ?? 'GET', path, status, conditional });
    const mode = failures.get(path);
    if (mode === 'hang') {
      log('hung');
      hung.set(path, [...(hung.get(path) ?? []), res]);
      return;
    }
    if (mode === 404 || mode === 500) {
      log(mode);
      res.writeHead(mode, { 'Content-Type': 'text/plain; charset=utf-8' }).end(mode === 404 ? 'Not Found\n' : 'Internal Server Error\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      log(405);
      res.writeHead(405, { Allow: 'GET, HEAD' }).end();
      return;
    }
    const f = served.get(path) ?? siteFile(version, path);
    if (!f) {
      log(404);
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not Found\n');
      return;
    }
    const headers = { ETag: f.etag, 'Last-Modified': f.lastModified, 'Cache-Control': 'no-cache' };
    if (notModified(req, f)) {
      log(304);
      res.writeHead(304, headers).end();
      return;
    }
    log(200);
    res.writeHead(200, { ...headers, 'Content-Type': f.contentType, 'Content-Length': String(f.bytes.length) });
    res.end(req.method === 'HEAD' ? undefined : f.bytes);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((ok) => server.listen(opts.port ?? 0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;

  const release = (path?: string) => {
    for (const [p, list] of hung) {
      if (path && p !== path) continue;
      for (const r of list) r.destroy();
      hung.delete(p);
    }
  };

  return {
    url: `http://127.0.0.1:${port}`,
    version: () => version,
    setVersion(v) {
      version = v;
    },
    fail(path, mode) {
      failures.set(path, mode);
    },
    serve(path, bytes, contentType) {
      const b = Buffer.from(bytes);
      const etag = `"${createHash('sha256').update(b).digest('hex').slice(0, 32)}"`;
      served.set(path, { bytes: b, etag, lastModified: new Date().toUTCString(), contentType: contentType ?? TYPES[extname(path)] ?? 'application/octet-stream', layer: 'served' });
    },
    heal(path) {
      if (path) {
        failures.delete(path);
        served.delete(path);
      } else {
        failures.clear();
        served.clear();
      }
      release(path);
    },
    requests,
    close: () =>
      new Promise<void>((ok, err) => {
        release();
        for (const s of sockets) s.destroy();
        server.close((e) => (e ? err(e) : ok()));
      }),
  };
}

/**
 * A manifest folder holding the synthetic town's manifest (pointed at a running site) beside the
 * manifests it depends on, or beside every shipped manifest when `all` is set.
 */
export async function syntheticManifests(siteUrl: string, opts: { all?: boolean } = {}): Promise<string> {
  const { mkdtemp, readFile, readdir, writeFile, copyFile } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const shipped = resolve(fileURLToPath(new URL('../ingest/manifests/', import.meta.url)));
  const dir = await mkdtemp(join(tmpdir(), 'landlex-manifests-'));
  const town = JSON.parse(await readFile(join(SITE_ROOT, 'town.json'), 'utf8'));
  await writeFile(join(dir, 'millbrook-ma.json'), JSON.stringify(town.manifest, null, 2).replaceAll('{site}', siteUrl));
  const copies = opts.all ? (await readdir(shipped)).filter((f) => f.endsWith('.json')) : ['massachusetts.json', 'middlesex-county-ma.json'];
  for (const f of copies) await copyFile(join(shipped, f), join(dir, f));
  return dir;
}
