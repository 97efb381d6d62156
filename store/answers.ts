// Answers kept for replay: GET /answer/{id} gives back exactly what was served.
import { named, type Pool, type Queryable } from './db.ts';

export interface AnswerRow {
  id: string;
  organizationId: string;
  path: string;
  request: unknown;
  /** the answer's JSON text exactly as served */
  body: string;
}

const COLUMNS = 5;
const insertSql = (rows: number) =>
  `INSERT INTO answer (id, organization_id, path, request, body) VALUES ${Array.from({ length: rows }, (_, r) => `(${Array.from({ length: COLUMNS }, (_, c) => `$${r * COLUMNS + c + 1}`).join(', ')})`).join(', ')} ON CONFLICT (id) DO NOTHING`;

/** Batches are of these sizes, each its own prepared statement. */
const SIZES = [16, 8, 4, 2, 1];
const STATEMENTS = new Map(SIZES.map((n) => [n, insertSql(n)]));

interface Waiting {
  row: AnswerRow;
  done: (err?: Error) => void;
}

/**
 * Group commit: an answer is written before it is served, but answers that come while a write is
 * under way go together in the next one (one statement for up to 16), so concurrent calls share
 * round trips instead of queueing for them.
 */
export class AnswerWriter {
  private waiting: Waiting[] = [];
  private writing = false;

  constructor(private pool: Pool) {}

  save(row: AnswerRow): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ row, done: (err) => (err ? reject(err) : resolve()) });
      // drain settles every waiting call itself; were it to throw, they are refused, not lost
      if (!this.writing)
        this.drain().catch((err) => {
          for (const w of this.waiting.splice(0)) w.done(err);
        });
    });
  }

  private async drain() {
    this.writing = true;
    try {
      while (this.waiting.length > 0) {
        const size = SIZES.find((n) => n <= this.waiting.length)!;
        const batch = this.waiting.splice(0, size);
        const values = batch.flatMap(({ row: a }) => [a.id, a.organizationId, a.path, a.request, a.body]);
        try {
          await this.pool.query(named(`save-answers-${size}`, STATEMENTS.get(size)!, values));
          for (const w of batch) w.done();
        } catch (err) {
          for (const w of batch) w.done(err as Error);
        }
      }
    } finally {
      this.writing = false;
    }
  }
}

export async function loadAnswer(db: Queryable, id: string, organizationId: string) {
  const { rows } = await db.query('SELECT id, path, request, body::text AS body, created_at FROM answer WHERE id = $1 AND organization_id = $2', [id, organizationId]);
  return rows[0] ?? null;
}
