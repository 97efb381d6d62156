// What the operator did wrong, in one line: a refusal of their input (a bad manifest, an unknown
// jurisdiction) or a database that is missing, unreachable or not migrated. Anything else is a
// fault of Landlex and keeps its stack trace.
import { redact } from '../core/config.ts';

type Failure = { type?: string; code?: string; message?: string; cause?: unknown; errors?: unknown[] };

function* chain(err: unknown): Generator<Failure> {
  for (let e = err as Failure | undefined; e; e = e.cause as Failure | undefined) {
    yield e;
    for (const inner of e.errors ?? []) yield* chain(inner);
  }
}

/** The one line for an error the operator can fix, or null. */
export function operatorMessage(err: unknown, databaseUrl: string): string | null {
  const where = `DATABASE_URL=${redact(databaseUrl)}`;
  for (const e of chain(err)) {
    if (e.type === 'ManifestInvalid' || e.type === 'BadInput') return e.message ?? null;
    if (e.code === '3D000') return `the database does not exist (${where}): run \`landlex migrate\` to create and migrate it`;
    if (e.code === '42P01') return `the database is not migrated (${e.message}; ${where}): run \`landlex migrate\``;
    if (e.code === 'ECONNREFUSED' || e.code === 'ENOTFOUND' || e.code === 'EHOSTUNREACH') return `cannot reach PostgreSQL (${e.code}; ${where}): is it running there?`;
    if (e.code === '28P01' || e.code === '28000') return `PostgreSQL refused the credentials (${where})`;
  }
  return null;
}
