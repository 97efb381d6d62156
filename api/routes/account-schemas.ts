// Body fields and the Session answer shared by the identity and invitation routes.
import type { Config } from '../../core/config.ts';
import { invalid } from '../../core/errors.ts';
import { passwordProblem } from '../../core/passwords.ts';
import type { Queryable } from '../../store/db.ts';
import type { Person } from '../../store/people.ts';
import { createSession } from '../../store/sessions.ts';
import type { Role } from '../../core/credentials.ts';
import type { JsonSchema } from '../route.ts';

export const EMAIL: JsonSchema = { type: 'string', format: 'email', maxLength: 254 };
export const PASSWORD: JsonSchema = { type: 'string', minLength: 10, maxLength: 200, description: '10 to 200 characters' };
export const NAME: JsonSchema = { type: 'string', minLength: 1, maxLength: 100, pattern: '\\S' };
export const TOKEN: JsonSchema = { type: 'string', minLength: 1, maxLength: 200, description: 'The token of the emailed link' };
/** The 2xx answers the contract calls "object of string to string". */
export const STRINGS: JsonSchema = { type: 'object', additionalProperties: { type: 'string' } };

export const SESSION: JsonSchema = {
  type: 'object',
  required: ['access_token', 'expires_in', 'token_type', 'user_id', 'organization_id', 'email', 'role'],
  properties: {
    access_token: { type: 'string', description: 'lls_ token for Authorization: Bearer' },
    expires_in: { type: 'integer', description: 'seconds' },
    token_type: { type: 'string', const: 'Bearer' },
    user_id: { type: 'string' },
    organization_id: { type: 'string' },
    email: { type: 'string' },
    role: { type: 'string', enum: ['owner', 'admin', 'member'] },
  },
};

/** A closed JSON object body (unknown fields are refused). */
export const body = (required: string[], properties: Record<string, JsonSchema>): JsonSchema => ({
  type: 'object',
  additionalProperties: false,
  required,
  properties,
});

export const badToken = () => invalid('token', 'This link is unknown, already used, revoked or expired; ask for a new one.');

export function checkPassword(password: string): void {
  const problem = passwordProblem(password);
  if (problem) throw invalid('password', `password ${problem}`);
}

/** Open a session and answer it in the Session shape (spec 2.7). */
export async function openSession(db: Queryable, config: Config, person: Pick<Person, 'id' | 'email'>, organizationId: string, role: Role) {
  const s = await createSession(db, { personId: person.id, organizationId, ttlSeconds: config.sessionTtlSeconds });
  return {
    access_token: s.token,
    expires_in: config.sessionTtlSeconds,
    token_type: 'Bearer',
    user_id: person.id,
    organization_id: organizationId,
    email: person.email,
    role,
  };
}
