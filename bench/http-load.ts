// The benches' HTTP load: `clients` concurrent keep-alive clients on loopback, each fetching a
// random path of the list with the API key, for `seconds`; rate and latency percentiles.
import http from 'node:http';

export interface LoadResult {
  rate: number; // answers per second
  p50: number; // ms
  p99: number; // ms
  count: number;
  errors: number; // answers other than 200 and 204, and failed requests
  statuses: Record<number, number>;
}

const round1 = (n: number) => Math.round(n * 10) / 10;

export function httpLoad(opts: { port: number; key: string; paths: string[]; seconds: number; clients: number }): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.clients });
  const times: number[] = [];
  const statuses: Record<number, number> = {};
  let errors = 0;
  const end = Date.now() + opts.seconds * 1000;
  const one = (path: string) =>
    new Promise<void>((resolve) => {
      const t = performance.now();
      const req = http.request({ host: '127.0.0.1', port: opts.port, path, agent, headers: { 'X-API-Key': opts.key } }, (res) => {
        res.resume();
        res.on('end', () => {
          const s = res.statusCode ?? 0;
          statuses[s] = (statuses[s] ?? 0) + 1;
          if (s !== 200 && s !== 204) errors++;
          times.push(performance.now() - t);
          resolve();
        });
      });
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end();
    });
  const client = async () => {
    while (Date.now() < end) await one(opts.paths[Math.floor(Math.random() * opts.paths.length)]);
  };
  const started = performance.now();
  return Promise.all(Array.from({ length: opts.clients }, client)).then(() => {
    agent.destroy();
    times.sort((a, b) => a - b);
    const q = (p: number) => (times.length ? round1(times[Math.min(times.length - 1, Math.floor(times.length * p))]) : Number.NaN);
    return { rate: Math.round(times.length / ((performance.now() - started) / 1000)), p50: q(0.5), p99: q(0.99), count: times.length, errors, statuses };
  });
}
