// A webhook must not point at this service: its own deliveries would call its own API (a loop,
// and a way to make it call itself). Refused: the public base URL's origin, the Host the request
// came to, and any loopback or unspecified address on the port this process listens on.
import { invalid } from '../core/errors.ts';
import type { Req } from './route.ts';

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\]|\[::\]|0\.0\.0\.0|\[::ffff:127\.\d+\.\d+\.\d+\])$/i;

const portOf = (u: URL) => Number(u.port || (u.protocol === 'https:' ? 443 : 80));

export function refuseSelf(req: Req, u: URL): void {
  const base = new URL(req.services.config.publicBaseUrl);
  const own = req.ctx.req.socket.localPort;
  const host = req.ctx.get('host').toLowerCase();
  const self =
    (u.hostname === base.hostname && portOf(u) === portOf(base)) ||
    (host !== '' && u.host.toLowerCase() === host) ||
    (LOOPBACK.test(u.hostname) && portOf(u) === own);
  if (self) throw invalid('url', `points at this service (${u.host}); give the receiver's own URL`);
}
