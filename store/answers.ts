// Answers kept for replay: GET /answer/{id} gives back exactly what was served.
import { named, type Queryable } from './db.ts';

/** body: the answer's JSON text exactly as served */
export async function saveAnswer(db: Queryable, a: { id: string; organizationId: string; path: string; request: unknown; body: string }): Promise<void> {
  await db.query(named('save-answer', 'INSERT INTO answer (id, organization_id, path, request, body) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING', [a.id, a.organizationId, a.path, a.request, a.body]));
}

export async function loadAnswer(db: Queryable, id: string, organizationId: string) {
  const { rows } = await db.query('SELECT id, path, request, body::text AS body, created_at FROM answer WHERE id = $1 AND organization_id = $2', [id, organizationId]);
  return rows[0] ?? null;
}
