// Content-addressed blob store: bytes kept under their sha256. The filesystem implementation is
// the default; an object store implements the same methods.
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

export interface BlobStore {
  put(bytes: Uint8Array): Promise<{ sha256: string; size: number; created: boolean }>;
  /** the same, from a stream, never holding the whole in memory */
  putStream(stream: AsyncIterable<Uint8Array>): Promise<{ sha256: string; size: number; created: boolean }>;
  get(sha256: string): Promise<Buffer>;
  has(sha256: string): Promise<boolean>;
  /** the byte size of a blob held, or null */
  size(sha256: string): Promise<number | null>;
}

const SHA = /^[0-9a-f]{64}$/;

export class FsBlobStore implements BlobStore {
  readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  path(sha256: string): string {
    if (!SHA.test(sha256)) throw new Error(`Not a sha256: ${sha256}`);
    return join(this.root, sha256.slice(0, 2), sha256.slice(2, 4), sha256);
  }

  async put(bytes: Uint8Array) {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const target = this.path(sha256);
    if (await this.has(sha256)) return { sha256, size: bytes.length, created: false };
    await mkdir(dirname(target), { recursive: true });
    const tmp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(tmp, bytes);
    await rename(tmp, target); // atomic: readers never see half a blob
    return { sha256, size: bytes.length, created: true };
  }

  async putStream(stream: AsyncIterable<Uint8Array>) {
    await mkdir(this.root, { recursive: true });
    const tmp = join(this.root, `incoming.${randomBytes(8).toString('hex')}.tmp`);
    const hash = createHash('sha256');
    let size = 0;
    const out = createWriteStream(tmp);
    try {
      for await (const chunk of stream) {
        hash.update(chunk);
        size += chunk.length;
        if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
      }
      await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
    } catch (err) {
      out.destroy();
      await rm(tmp, { force: true });
      throw err;
    }
    const sha256 = hash.digest('hex');
    if (await this.has(sha256)) {
      await rm(tmp, { force: true });
      return { sha256, size, created: false };
    }
    const target = this.path(sha256);
    await mkdir(dirname(target), { recursive: true });
    await rename(tmp, target);
    return { sha256, size, created: true };
  }

  async get(sha256: string): Promise<Buffer> {
    return readFile(this.path(sha256));
  }

  async has(sha256: string): Promise<boolean> {
    return (await this.size(sha256)) !== null;
  }

  async size(sha256: string): Promise<number | null> {
    try {
      return (await stat(this.path(sha256))).size;
    } catch {
      return null;
    }
  }
}
