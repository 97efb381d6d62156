// Fetch a source: HTTP GET with conditional headers and a timeout (or a file: URL), bytes into
// the blob store. 304 or identical bytes are "not modified". 404/410 are final; 5xx and
// network errors are thrown to be retried by the retry policy.
import { existsSync } from 'node:fs';
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApplicationFailure } from '@temporalio/common';
import type { BlobStore } from '../store/blobs.ts';

export interface FetchResult {
  state: 'fetched' | 'not_modified';
  sha256: string | null;
  size: number;
  retrievedAt: string;
  etag: string | null;
  lastModified: string | null;
  mediaType: string | null;
}

export interface PriorFetch {
  etag: string | null;
  lastModified: string | null;
  sha256: string | null;
}

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Where ../shared is: SHARED_DIR, else beside the checkout, else /work/shared. */
export function sharedDir(): string {
  const candidates = [process.env.SHARED_DIR, resolve(REPO, '..', 'shared'), '/work/shared'].filter(Boolean) as string[];
  return candidates.find((d) => existsSync(resolve(d, 'real'))) ?? candidates[0];
}

export function resolveUrl(url: string): string {
  if (url.startsWith('file:{shared}')) return `file://${resolve(sharedDir(), url.slice('file:{shared}/'.length))}`;
  if (url.startsWith('file:{repo}')) return `file://${resolve(REPO, url.slice('file:{repo}/'.length))}`;
  return url;
}

export async function fetchSource(
  blobs: BlobStore,
  url: string,
  prior: PriorFetch,
  opts: { timeoutMs?: number; now?: () => Date } = {},
): Promise<FetchResult> {
  const now = opts.now ?? (() => new Date());
  const target = resolveUrl(url);
  const retrievedAt = now().toISOString();
  let put: { sha256: string; size: number };
  let etag: string | null = null;
  let lastModified: string | null = null;
  let mediaType: string | null = null;

  if (target.startsWith('file://')) {
    try {
      put = await blobs.putStream(createReadStream(fileURLToPath(target)));
    } catch (err) {
      throw ApplicationFailure.nonRetryable(`cannot read ${target}: ${(err as Error).message}`, 'SourceUnavailable');
    }
  } else {
    const headers: Record<string, string> = { 'User-Agent': 'Landlex/0.1 (+public records ingestion)' };
    if (prior.etag) headers['If-None-Match'] = prior.etag;
    if (prior.lastModified) headers['If-Modified-Since'] = prior.lastModified;
    let res: Response;
    try {
      res = await fetch(target, { headers, signal: AbortSignal.timeout(opts.timeoutMs ?? 30_000), redirect: 'follow' });
    } catch (err) {
      const e = err as Error;
      throw ApplicationFailure.retryable(`GET ${target} failed: ${e.name === 'TimeoutError' ? 'timed out' : e.message}`, 'SourceUnreachable');
    }
    if (res.status === 304) {
      await res.body?.cancel();
      // the bytes are those last fetched: a version not recorded yet (a crash after the fetch) gets their size
      const size = prior.sha256 ? ((await blobs.size(prior.sha256)) ?? 0) : 0;
      return { state: 'not_modified', sha256: prior.sha256, size, retrievedAt, etag: prior.etag, lastModified: prior.lastModified, mediaType: null };
    }
    if (res.status === 404 || res.status === 410) {
      await res.body?.cancel();
      throw ApplicationFailure.nonRetryable(`GET ${target} answered ${res.status}`, 'SourceGone');
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw ApplicationFailure.retryable(`GET ${target} answered ${res.status}`, 'SourceError');
    }
    try {
      put = await blobs.putStream(Readable.fromWeb(res.body as never));
    } catch (err) {
      const e = err as Error;
      throw ApplicationFailure.retryable(`GET ${target} failed while reading: ${e.name === 'TimeoutError' ? 'timed out' : e.message}`, 'SourceUnreachable');
    }
    etag = res.headers.get('etag');
    lastModified = res.headers.get('last-modified');
    mediaType = res.headers.get('content-type');
  }

  if (put.sha256 === prior.sha256) {
    return { state: 'not_modified', sha256: put.sha256, size: put.size, retrievedAt, etag: etag ?? prior.etag, lastModified: lastModified ?? prior.lastModified, mediaType };
  }
  return { state: 'fetched', sha256: put.sha256, size: put.size, retrievedAt, etag, lastModified, mediaType };
}
