// `landlex org create`: an organization with a verified owner, credit and one API key. Without
// --password the owner's password is generated and returned once (`owner_password`): it is the
// only way to sign in as the owner, since the default address (@<slug>.invalid) receives no mail.
import { randomToken } from '../core/ids.ts';
import { hashPassword, passwordProblem } from '../core/passwords.ts';
import { SCOPES } from '../core/credentials.ts';
import { type Pool, withTransaction } from '../store/db.ts';
import { mintKey } from '../store/keys.ts';
import { createOrganization, slugify } from '../store/organizations.ts';

export async function orgCreate(pool: Pool, o: { name: string; credits: number; email?: string; password?: string }) {
  const email = o.email ?? `owner-${randomToken(4).toLowerCase().replace(/[^a-z0-9]/g, 'x')}@${slugify(o.name)}.invalid`;
  const password = o.password ?? randomToken(18);
  const problem = passwordProblem(password);
  if (problem) throw new Error(`--password ${problem}`);
  const passwordHash = await hashPassword(password);
  const taken = await pool.query('SELECT 1 FROM person WHERE email = $1', [email]);
  if (taken.rowCount) throw new Error(`--email ${email} is already registered; choose another`);
  return withTransaction(pool, async (c) => {
    const { organizationId, personId } = await createOrganization(c, {
      name: o.name,
      owner: { email, passwordHash, verified: true },
      credits: o.credits,
    });
    const key = await mintKey(c, { organizationId, name: 'operator', scopes: SCOPES, createdBy: personId });
    return {
      organization_id: organizationId,
      api_key: key.key,
      owner_email: email,
      ...(o.password === undefined ? { owner_password: password, note: 'owner_password was generated and is shown only now: sign in with POST /session {email: owner_email, password: owner_password, organization_id}' } : {}),
    };
  });
}
