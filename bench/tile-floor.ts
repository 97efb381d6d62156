// bench:maps's floor: the least an HTTP server in Node can do per tile. node:http and pg, the
// tile statement the API runs for tiles as known now (its ETag key worked out in the process,
// tiles/keys.ts) prepared on a pool of the API's size and settings, and nothing else: no API
// key, no rate, no usage, no ETag. Run as `tsx bench/tile-floor.ts <url> <port>`.
import { createServer } from 'node:http';
import { loadConfig } from '../core/config.ts';
import { createPool } from '../store/db.ts';
import { mapTimes, TILE_LAYERS, type TileLayer, tileSql, tolerance } from '../tiles/layers.ts';

const [url, port] = process.argv.slice(2);
const config = loadConfig({ ...process.env, DATABASE_URL: url });
const pool = createPool(url, { max: config.dbPoolSize, statementTimeoutMs: config.statementTimeoutMs, serving: true });
const sql = Object.fromEntries(Object.values(TILE_LAYERS).map((l) => [l.id, tileSql(l)]));

createServer(async (req, res) => {
  const m = /^\/map\/(\w+)\/(\d+)\/(\d+)\/(\d+)$/.exec(req.url ?? '');
  if (!m || !sql[m[1]]) {
    res.statusCode = req.url === '/health' ? 200 : 404;
    res.end();
    return;
  }
  const [z, x, y] = [Number(m[2]), Number(m[3]), Number(m[4])];
  const { asOf, knownAsOf: known } = mapTimes({});
  const { rows } = await pool.query({ name: `tile-${m[1]}`, text: sql[m[1] as TileLayer['id']], values: [z, x, y, asOf, known, tolerance(z)] });
  if (rows[0].features === 0) {
    res.statusCode = 204;
    res.end();
    return;
  }
  res.setHeader('Content-Type', 'application/vnd.mapbox-vector-tile');
  res.end(rows[0].tile);
}).listen(Number(port), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
