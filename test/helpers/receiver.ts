// A webhook receiver on loopback: records every call (headers, raw body, when) and answers what
// the test's `answer` says for it (a status, or 'hang' to never answer). Anything but a POST is 404.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
  at: number;
  status: number | 'hang';
}

export interface Receiver {
  url: string;
  calls: Received[];
  /** the calls answered 2xx */
  delivered(): Received[];
  answer: (n: number, body: any) => number | 'hang';
  close(): Promise<void>;
  /** wait until `pred` holds over the calls (polls; fails after `ms`) */
  until(pred: (calls: Received[]) => boolean, ms?: number): Promise<void>;
}

export async function startReceiver(answer: Receiver['answer'] = () => 200): Promise<Receiver> {
  const calls: Received[] = [];
  const hanging = new Set<import('node:http').ServerResponse>();
  const r = { answer } as Receiver;
  const server: Server = createServer((req, res) => {
    // only deliveries are recorded (the suite's fetch wrapper asks every loopback origin for /openapi.json)
    if (req.method !== 'POST') {
      res.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: any = null;
      try {
        json = JSON.parse(body);
      } catch {
        /* kept as text */
      }
      const status = r.answer(calls.length, json);
      calls.push({ headers: req.headers, body, json, at: Date.now(), status });
      if (status === 'hang') {
        hanging.add(res);
        return;
      }
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(status >= 200 && status < 300 ? 'ok' : `receiver says ${status} ${'x'.repeat(3000)}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  Object.assign(r, {
    url: `http://127.0.0.1:${port}/hook`,
    calls,
    delivered: () => calls.filter((c) => typeof c.status === 'number' && c.status >= 200 && c.status < 300),
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    async until(pred: (c: Received[]) => boolean, ms = 30_000) {
      const end = Date.now() + ms;
      while (!pred(calls)) {
        if (Date.now() > end) throw new Error(`receiver: condition not met within ${ms} ms (${calls.length} calls)`);
        await new Promise((res) => setTimeout(res, 25));
      }
    },
  });
  return r;
}
