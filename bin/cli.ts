// landlex: migrate | serve | org create | ingest | worker | extract
import { Command } from 'commander';
import { startServer } from '../api/server.ts';
import { keepRunningOnStrayErrors } from '../core/background.ts';
import { ConfigError, loadConfig, redact } from '../core/config.ts';
import { createLogger } from '../core/log.ts';
import { createPool, ensureDatabase } from '../store/db.ts';
import { migrate } from '../store/migrate.ts';
import { describeOutcome, runExtractCli } from './extract.ts';
import { operatorMessage } from './failures.ts';
import { runIngest, table } from './ingest.ts';
import { orgCreate } from './org.ts';
import { examples, ingestSamples, sampleKey } from './sample.ts';

function config() {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}

/** The message of a refusal of the operator's input (a bad manifest, an unknown slug), found along the error's causes. */
function badInput(err: unknown): string | null {
  for (let e = err as { type?: string; message?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e.type === 'ManifestInvalid' || e.type === 'BadInput') return e.message ?? null;
  }
  return null;
}

const program = new Command().name('landlex').description('Land-use rules and property records from public sources.');

program
  .command('migrate')
  .description('create the database if needed and apply every migration (idempotent)')
  .action(async () => {
    const cfg = config();
    const created = await ensureDatabase(cfg.databaseUrl);
    const pool = createPool(cfg.databaseUrl, { max: 1 });
    try {
      const { applied, current } = await migrate(pool);
      process.stdout.write(
        `${created ? 'created database; ' : ''}${applied.length ? `applied ${applied.join(', ')}` : 'nothing to apply'}; schema at ${current} (${redact(cfg.databaseUrl)})\n`,
      );
    } finally {
      await pool.end();
    }
  });

program
  .command('serve')
  .description('serve the API')
  .option('--port <port>', 'port to listen on (default PORT or 8080)')
  .action(async (opts: { port?: string }) => {
    if (opts.port !== undefined) process.env.PORT = opts.port;
    const cfg = config();
    const log = createLogger(cfg.logLevel);
    keepRunningOnStrayErrors(log);
    const running = await startServer(cfg, { log });
    const stop = (signal: string) => {
      log.info('signal', { signal });
      running.close().then(
        () => process.exit(0),
        (err) => {
          log.error('shutdown failed', { err });
          process.exit(1);
        },
      );
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });

const org = program.command('org').description('organizations (the operator’s way in while registration is closed)');
org
  .command('create')
  .description('create an organization with a verified owner and an API key')
  .requiredOption('--name <name>', 'organization name')
  .requiredOption('--credits <n>', 'prepaid credits to grant (0 for none)')
  .option('--email <email>', 'owner email (default owner-<random>@<slug>.invalid, which receives no mail)')
  .option('--password <password>', 'owner password (default: random, printed once as owner_password)')
  .option('--json', 'print {organization_id, api_key, owner_email[, owner_password, note]} as JSON')
  .action(async (opts: { name: string; credits: string; email?: string; password?: string; json?: boolean }) => {
    const cfg = config();
    if (!/^\d+$/.test(opts.credits)) {
      process.stderr.write(`--credits ${JSON.stringify(opts.credits)}: expected a whole number\n`);
      process.exit(2);
    }
    const pool = createPool(cfg.databaseUrl, { max: 2 });
    try {
      const out = await orgCreate(pool, { name: opts.name, credits: Number(opts.credits), email: opts.email, password: opts.password }).catch((err: Error) => {
        process.stderr.write(`landlex org create: ${operatorMessage(err, cfg.databaseUrl) ?? err.message}\n`);
        process.exit(2);
      });
      const generated = 'owner_password' in out ? `owner password ${out.owner_password} (generated; shown only now)\n` : '';
      process.stdout.write(opts.json ? `${JSON.stringify(out)}\n` : `organization ${out.organization_id}\nowner ${out.owner_email}\n${generated}api key ${out.api_key}\n`);
    } finally {
      await pool.end();
    }
  });

program
  .command('sample')
  .description('ingest the sample jurisdictions (unchanged sources are skipped) and print an API key with example requests')
  .option('--port <port>', 'port the API will listen on', '8080')
  .option('--host <host>', 'host the API will listen on', '127.0.0.1')
  .action(async (opts: { port: string; host: string }) => {
    const cfg = config();
    const pool = createPool(cfg.databaseUrl, { max: 4 });
    try {
      for (const summary of await ingestSamples(cfg, pool, createLogger('error'), process.stderr.isTTY)) process.stdout.write(`${table(summary)}\n\n`);
      const key = await sampleKey(pool);
      process.stdout.write(examples(`http://${opts.host}:${opts.port}`, key));
    } finally {
      await pool.end();
    }
  });

program
  .command('ingest')
  .description('fetch, version, parse and load the sources of jurisdictions (in-process, or on Temporal with TEMPORAL_ADDRESS)')
  .argument('[jurisdiction...]', 'jurisdiction slugs (manifests in ingest/manifests)')
  .option('--all', 'every jurisdiction with a manifest')
  .option('--json', 'print the summary as JSON on stdout')
  .option('--manifests <dir>', 'read the manifests from this directory instead of ingest/manifests')
  .action(async (slugs: string[], opts: { all?: boolean; json?: boolean; manifests?: string }) => {
    const cfg = config();
    if (!opts.all && slugs.length === 0) {
      process.stderr.write('name a jurisdiction or pass --all\n');
      process.exit(2);
    }
    const pool = createPool(cfg.databaseUrl, { max: 4 });
    const log = createLogger(opts.json ? 'error' : cfg.logLevel === 'info' ? 'warn' : cfg.logLevel);
    try {
      const summary = await runIngest(cfg, pool, log, opts.all ? 'all' : slugs, { progress: !opts.json && process.stderr.isTTY, manifestDir: opts.manifests });
      process.stdout.write(opts.json ? `${JSON.stringify(summary, null, 2)}\n` : `${table(summary)}\n`);
      process.exitCode = summary.totals.failed > 0 ? 1 : 0;
    } catch (err) {
      // a bad manifest or an unknown jurisdiction is the operator's input: one line, exit 2
      const input = badInput(err);
      if (!input) throw err;
      process.stderr.write(`landlex ingest: ${input}\n`);
      process.exitCode = 2;
    } finally {
      await pool.end();
    }
  });

program
  .command('worker')
  .description('run a Temporal worker for the ingestion workflows (needs TEMPORAL_ADDRESS)')
  .action(async () => {
    const cfg = config();
    if (!cfg.temporalAddress) {
      process.stderr.write('TEMPORAL_ADDRESS is not set: without Temporal, `landlex ingest` runs the workflows in-process\n');
      process.exit(2);
    }
    const { runWorker } = await import('./temporal.ts');
    const pool = createPool(cfg.databaseUrl, { max: cfg.dbPoolSize });
    const log = createLogger(cfg.logLevel);
    keepRunningOnStrayErrors(log);
    await runWorker(cfg, pool, log);
  });

program
  .command('schedule')
  .description('create or update one Temporal Schedule per source from its cadence (needs TEMPORAL_ADDRESS)')
  .action(async () => {
    const cfg = config();
    if (!cfg.temporalAddress) {
      process.stderr.write('TEMPORAL_ADDRESS is not set: schedules live on a Temporal server\n');
      process.exit(2);
    }
    const { syncSchedules } = await import('./temporal.ts');
    const pool = createPool(cfg.databaseUrl, { max: 2 });
    try {
      process.stdout.write(`${(await syncSchedules(cfg, pool)).join('\n')}\n`);
    } finally {
      await pool.end();
    }
  });

program
  .command('extract')
  .description('write a resource of jurisdictions to a JSONL, GeoParquet, GeoJSONSeq, GeoPackage, FlatGeobuf or Geobuf file (in-process, or on Temporal with TEMPORAL_ADDRESS)')
  .argument('<resource>', 'jurisdiction, parcel, property, district, district_area, permission, control or change_event')
  .requiredOption('--jurisdiction <slug...>', 'jurisdictions (slug, jur_ id or fips_key); repeatable')
  .requiredOption('--format <format>', 'jsonl, parquet, geojsonseq, gpkg, flatgeobuf (these three open in GDAL and QGIS) or geobuf (.pbf, for the geobuf package)')
  .option('--as-of <time>', 'valid time (a date, a date-time with offset, or from:<date> to:<date>)')
  .option('--known-as-of <time>', 'knowledge time (a date or a date-time with offset)')
  .option('--field <names>', 'columns, comma-separated (id and effective_from are always kept)')
  .option('--filter <json>', 'filter, e.g. \'{"area_sq_ft": {"gte": 10000}}\'')
  .option('--out <dir>', 'directory for the file (default EXTRACT_DIR/<extract id>)')
  .option('--json', 'print the outcome as JSON on stdout')
  .action(async (resource: string, opts: { jurisdiction: string[]; format: string; asOf?: string; knownAsOf?: string; field?: string; filter?: string; out?: string; json?: boolean }) => {
    const cfg = config();
    const pool = createPool(cfg.databaseUrl, { max: 4 });
    try {
      const r = await runExtractCli(cfg, pool, createLogger('error'), resource, { ...opts, progress: !opts.json && process.stderr.isTTY });
      process.stdout.write(opts.json ? `${JSON.stringify(r, null, 2)}\n` : `${describeOutcome(r)}\n`);
      process.exitCode = r.state === 'succeeded' ? 0 : 1;
    } catch (err) {
      const e = err as { field?: string | null; detail?: string; message: string };
      process.stderr.write(`${e.field ? `${e.field}: ` : ''}${e.detail ?? e.message}\n`);
      process.exitCode = 2;
    } finally {
      await pool.end();
    }
  });

try {
  await program.parseAsync(process.argv);
} catch (err) {
  const line = operatorMessage(err, process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/landlex');
  if (!line) throw err;
  process.stderr.write(`landlex: ${line}\n`);
  process.exitCode = 2;
}
