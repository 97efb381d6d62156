// The pages a person sees at GET /oauth/authorize: a sign-in and consent form (email and
// password of a person of the client's organization), and a page for a request that names no
// client or redirect URI Landlex can trust. Plain HTML, no script, no cookies.
import { SCOPE_DESCRIPTIONS, type Scope } from '../../core/credentials.ts';
import { REQUEST_FIELDS } from './request.ts';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Headers of every page: never framed (clickjacking), never cached, no referrer to the client. */
export const PAGE_HEADERS = {
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
};

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#222}
h1{font-size:1.4rem}ul{padding-left:1.2rem}label{display:block;margin:.8rem 0 .2rem}
input[type=email],input[type=password]{width:100%;padding:.4rem;font:inherit;box-sizing:border-box}
.buttons{margin-top:1.2rem;display:flex;gap:.6rem}button{font:inherit;padding:.4rem 1rem}
.problem{background:#fde8e8;border:1px solid #e0a0a0;padding:.5rem .8rem}`;

function page(title: string, body: string): string {
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)} · Landlex</title><style>${STYLE}</style></head><body>${body}</body></html>\n`;
}

export interface ConsentPage {
  clientName: string;
  organizationName: string;
  scopes: string[];
  /** the authorization request's fields, carried back by the form */
  fields: Record<string, string>;
  email?: string;
  problem?: string;
}

export function consentPage(p: ConsentPage): string {
  const hidden = REQUEST_FIELDS.filter((f) => p.fields[f] !== undefined)
    .map((f) => `<input type="hidden" name="${f}" value="${esc(p.fields[f])}">`)
    .join('\n');
  const scopes = p.scopes.map((s) => `<li><code>${esc(s)}</code>: ${esc(SCOPE_DESCRIPTIONS[s as Scope] ?? s)}</li>`).join('');
  return page(
    `Sign in for ${p.clientName}`,
    `<h1>Sign in to Landlex</h1>
<p><strong>${esc(p.clientName)}</strong> asks to use Landlex for <strong>${esc(p.organizationName)}</strong>, charged to its credit, with these scopes:</p>
<ul>${scopes}</ul>
${p.problem ? `<p class="problem" role="alert">${esc(p.problem)}</p>` : ''}
<form method="post" action="/oauth/authorize">
${hidden}
<label for="email">Email</label><input id="email" type="email" name="email" autocomplete="username" required value="${esc(p.email ?? '')}">
<label for="password">Password</label><input id="password" type="password" name="password" autocomplete="current-password">
<div class="buttons"><button type="submit" name="decision" value="allow">Sign in and allow</button>
<button type="submit" name="decision" value="deny" formnovalidate>Deny</button></div>
</form>
<p>Only a person of ${esc(p.organizationName)} can allow it. Its access ends when it revokes its token or when the organization deletes it as a client.</p>`,
  );
}

export function problemPage(message: string): string {
  return page('Cannot sign in', `<h1>This sign-in link cannot be used</h1>\n<p class="problem" role="alert">${esc(message)}</p>\n<p>Nothing was sent back to the application. Check its OAuth settings (client id and redirect URI) against the client registered in Landlex.</p>`);
}
