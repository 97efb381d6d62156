// Test databases: a template migrated once per set of migrations, cloned per run or per test file.
import pg from 'pg';
import { ensureDatabase, createPool, dropDatabase as drop } from '../../store/db.ts';
import { migrate, readMigrations } from '../../store/migrate.ts';
import { sha256Hex } from '../../core/ids.ts';

/** The server tests use: DATABASE_URL's server when set, else the local one. */
export const SERVER_URL = (() => {
  const u = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/landlex');
  u.pathname = '';
  return u.toString().replace(/\/$/, '');
})();

export function databaseUrl(name: string): string {
  return `${SERVER_URL}/${name}`;
}

/** The migrated template for the current migrations (created once, under a lock). */
export async function createTemplate(): Promise<string> {
  const migrations = await readMigrations();
  const name = `landlex_tmpl_${sha256Hex(migrations.map((m) => m.sha256).join()).slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: databaseUrl('postgres') });
  await admin.connect();
  try {
    await admin.query('SELECT pg_advisory_lock(7301002)');
    const found = await admin.query('SELECT datistemplate FROM pg_database WHERE datname = $1', [name]);
    if (found.rows[0]?.datistemplate) return name;
    await admin.query(`DROP DATABASE IF EXISTS ${admin.escapeIdentifier(name)}`);
    await ensureDatabase(databaseUrl(name));
    const pool = createPool(databaseUrl(name), { max: 1 });
    try {
      await migrate(pool);
    } finally {
      await pool.end();
    }
    await admin.query(`ALTER DATABASE ${admin.escapeIdentifier(name)} WITH is_template true`);
    return name;
  } finally {
    await admin.query('SELECT pg_advisory_unlock(7301002)').catch(() => {});
    await admin.end();
  }
}

/** A new database cloned from the template. */
export async function urlFor(name: string, template: string): Promise<string> {
  const url = databaseUrl(name);
  await drop(url);
  await ensureDatabase(url, template);
  return url;
}

export async function dropDatabase(url: string): Promise<void> {
  await drop(url);
}

/** A database of the test's own, cloned from the migrated template; drop it when done. */
export async function freshDatabase(label: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const template = await createTemplate();
  const name = `landlex_t_${label.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${process.pid}_${Date.now().toString(36)}`;
  const url = await urlFor(name, template);
  return { url, drop: () => drop(url) };
}

/** A hash of the code and data a loaded template depends on, so a stale one is never reused. */
async function codeHash(): Promise<string> {
  const { readdir, readFile } = await import('node:fs/promises');
  const { join } = await import('node:path');
  const root = new URL('../../', import.meta.url).pathname;
  const files: string[] = [];
  const walk = async (dir: string) => {
    for (const e of await readdir(join(root, dir), { withFileTypes: true })) {
      const rel = join(dir, e.name);
      if (e.isDirectory()) await walk(rel);
      else if (/\.(ts|json|sql|md|csv|html|geojson)$/.test(e.name)) files.push(rel);
    }
  };
  for (const d of ['sql', 'ingest', 'store', 'activities', 'workflows', 'vocabulary']) await walk(d).catch(() => {});
  const parts = await Promise.all(files.sort().map(async (f) => `${f}:${sha256Hex(await readFile(join(root, f)))}`));
  return sha256Hex(parts.join('\n')).slice(0, 12);
}

/**
 * A database with jurisdictions already ingested, cloned from a template loaded once (per code
 * version) by `load`. Tests that only read loaded data share the load's cost.
 */
export async function loadedDatabase(label: string, load: (url: string) => Promise<void>): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `landlex_loaded_${label}_${await codeHash()}`;
  const admin = new pg.Client({ connectionString: databaseUrl('postgres') });
  await admin.connect();
  try {
    await admin.query('SELECT pg_advisory_lock(7301003)');
    const found = await admin.query('SELECT datistemplate FROM pg_database WHERE datname = $1', [name]);
    if (!found.rows[0]?.datistemplate) {
      // templates of older code are of no further use
      const stale = await admin.query(`SELECT datname FROM pg_database WHERE datname LIKE $1 AND datname <> $2`, [`landlex_loaded_${label}_%`, name]);
      for (const r of stale.rows) {
        await admin.query(`ALTER DATABASE ${admin.escapeIdentifier(r.datname)} WITH is_template false`);
        await admin.query(`DROP DATABASE IF EXISTS ${admin.escapeIdentifier(r.datname)} WITH (FORCE)`);
      }
      await admin.query(`DROP DATABASE IF EXISTS ${admin.escapeIdentifier(name)}`);
      const url = await urlFor(name, await createTemplate());
      await load(url);
      await admin.query(`ALTER DATABASE ${admin.escapeIdentifier(name)} WITH is_template true`);
    }
    // cloned under the lock: a run of other code drops this template only between clones
    const copy = `landlex_t_${label}_${process.pid}_${Date.now().toString(36)}`;
    const url = await urlFor(copy, name);
    return { url, drop: () => drop(url) };
  } finally {
    await admin.query('SELECT pg_advisory_unlock(7301003)').catch(() => {});
    await admin.end();
  }
}
